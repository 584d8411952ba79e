// A service run as a real child process in a test, with its JSON logs read as they are written and its exit awaited.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';

export interface ServiceProcess {
  child: ChildProcess;
  /** http://127.0.0.1:<port>, known once the service logged that it listens. */
  url: string;
  /** Every JSON log line so far (non-JSON lines are kept as `{ raw }`). */
  logs: Array<Record<string, unknown>>;
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  exited: Promise<number | string>;
  /** SIGKILL if still running; for afterEach/afterAll. */
  kill(): Promise<void>;
}

export interface SpawnOptions {
  /** Extra environment; PORT defaults to 0 and HOST to 127.0.0.1. */
  env?: Record<string, string>;
  cwd?: string;
  /** Milliseconds to wait for the "listening" log line. */
  startTimeoutMs?: number;
}

/**
 * Runs `node <entry>` as a real process (on the same Node as the test), collects its JSON log lines from stdout
 * and stderr, and resolves when it logs the address it listens on.
 */
export async function spawnService(entry: string, options: SpawnOptions = {}): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [entry], {
    cwd: options.cwd,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  const exited = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | string);
  const listening = new Promise<string>((resolve) => {
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        const entry = parseLogLine(line);
        logs.push(entry);
        const address =
          typeof entry.msg === 'string' ? /^Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(entry.msg) : null;
        if (address?.[1]) resolve(address[1]);
      });
    }
  });
  const timeoutMs = options.startTimeoutMs ?? 15_000;
  let timer: NodeJS.Timeout | undefined;
  const url = await Promise.race([
    listening,
    exited.then((code) => {
      throw new Error(`${entry} exited (${code}) before listening:\n${formatLogs(logs)}`);
    }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${entry} did not listen within ${timeoutMs} ms:\n${formatLogs(logs)}`)),
        timeoutMs,
      );
    }),
  ])
    .catch((error: unknown) => {
      // A process that never said it listens is nobody's to kill later: do it now, or it outlives the test run.
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      throw error;
    })
    .finally(() => clearTimeout(timer));
  return {
    child,
    url,
    logs,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/** Runs `node <entry>` to completion, for processes expected to exit on their own (bad configuration, say). */
export async function runToExit(
  entry: string,
  options: Pick<SpawnOptions, 'env' | 'cwd'> & { timeoutMs?: number } = {},
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [entry], {
    cwd: options.cwd,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: options.timeoutMs ?? 15_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
  return { code: code ?? signal ?? 'unknown', stdout, stderr };
}

function parseLogLine(line: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(line);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {}
  return { raw: line };
}

function formatLogs(logs: Array<Record<string, unknown>>): string {
  return logs.map((l) => JSON.stringify(l)).join('\n');
}

/** A loopback port free right now, for a process that cannot be told to listen on port 0 and report it. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}
