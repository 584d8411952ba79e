// What wrk prints, read once for every bench that runs it (each runs wrk with its own options and keeps what it needs).

export interface WrkOutput {
  /** Requests completed in the run, and the run's length in seconds as wrk timed it. */
  requests: number;
  seconds: number;
  rps: number;
  /** Latency percentiles (wrk --latency), ms. */
  p50Ms: number;
  p99Ms: number;
  /** Answers other than 2xx or 3xx. */
  non2xx: number;
  socketErrors: { connect: number; read: number; write: number; timeout: number };
}

/** wrk's `1.23ms`, `456.00us`, `2.01s` as ms; NaN when it is none of these. */
export function wrkDurationMs(text: string | undefined): number {
  const match = /([\d.]+)(us|ms|s)/.exec(text ?? '');
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

export function parseWrkOutput(output: string): WrkOutput {
  const count = (re: RegExp) => Number(re.exec(output)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const [connect = 0, read = 0, write = 0, timeout = 0] = socket ? socket.slice(1).map(Number) : [];
  return {
    requests: count(/(\d+) requests in/),
    seconds: wrkDurationMs(/requests in ([\d.]+\w+),/.exec(output)?.[1]) / 1000,
    rps: count(/Requests\/sec:\s+([\d.]+)/),
    p50Ms: wrkDurationMs(/\s50%\s+(\S+)/.exec(output)?.[1]),
    p99Ms: wrkDurationMs(/\s99%\s+(\S+)/.exec(output)?.[1]),
    non2xx: count(/Non-2xx or 3xx responses: (\d+)/),
    socketErrors: { connect, read, write, timeout },
  };
}
