// Slow clients: connections that send their request a little at a time (a slowloris, a trickled body), to check
// that a server cuts them by its timeouts. Used by the web service's tests and the container suites.
import { connect } from 'node:net';

export interface SlowClientOptions {
  host: string;
  port: number;
  count: number;
  /** Written at once on connecting (the n-th connection's). */
  head: (n: number) => string;
  /** Then this, every `dripEveryMs`. */
  drip: string;
  dripEveryMs: number;
  /** Connections still open by then are closed by the client and counted as never cut. */
  giveUpAfterMs: number;
}

export interface SlowClientReport {
  /** When the server closed each connection it closed, ms after it was opened. */
  cutAfterMs: number[];
  /** Connections the server left open until the client gave up (or refused to open). */
  neverCut: number;
  /** The status line the server answered each connection with before closing it, if any ("408", "none"). */
  answers: Record<string, number>;
}

/** Opens `count` connections that send their request slowly (a slowloris, or a trickled body). */
export async function slowClients(options: SlowClientOptions): Promise<SlowClientReport> {
  const report: SlowClientReport = { cutAfterMs: [], neverCut: 0, answers: {} };
  const one = (n: number) =>
    new Promise<void>((resolve) => {
      const opened = performance.now();
      let status = 'none';
      let gaveUp = false;
      let cutAfterMs: number | undefined;
      const socket = connect(options.port, options.host, () => socket.write(options.head(n)));
      const drip = setInterval(() => socket.write(options.drip), options.dripEveryMs);
      const giveUp = setTimeout(() => {
        gaveUp = true;
        socket.destroy();
      }, options.giveUpAfterMs);
      // An end, a reset or a refused connection before the client gave up: the server cut it.
      const cut = () => {
        if (!gaveUp && cutAfterMs === undefined) cutAfterMs = performance.now() - opened;
        socket.destroy();
      };
      socket.on('data', (chunk: Buffer) => {
        status = /^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? status;
      });
      socket.on('end', cut);
      socket.on('error', cut);
      socket.on('close', () => {
        clearInterval(drip);
        clearTimeout(giveUp);
        if (cutAfterMs === undefined) report.neverCut++;
        else report.cutAfterMs.push(cutAfterMs);
        report.answers[status] = (report.answers[status] ?? 0) + 1;
        resolve();
      });
    });
  await Promise.all(Array.from({ length: options.count }, (_, n) => one(n)));
  return report;
}
