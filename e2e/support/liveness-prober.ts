// A liveness prober that behaves like the kubelet's httpGet probe: a new connection per probe, `Connection: close`,
// a short timeout, success on 2xx/3xx. It runs in a worker thread so that what the test's own thread does (building
// bodies, uploading, parsing answers) never shows up as probe latency. This file is also the worker's entry: Node
// loads it directly (type stripping), so it imports nothing but built-ins.
import { createServer, request } from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

export interface ProberOptions {
  /** The liveness URL, e.g. http://localhost:49153/healthz. */
  url: string;
  /** A probe starts this long after the previous one started (or at once if that one took longer). */
  intervalMs: number;
  /** A probe without a complete answer by then has failed. */
  timeoutMs: number;
}

export interface ProbeReport {
  count: number;
  /** Why each failed probe failed (status, error code, or no answer). */
  failures: string[];
  p50Ms: number;
  p95Ms: number;
  /** Failed probes count with the time they took (the timeout, for one that never answered). */
  maxMs: number;
  /** p95 of the same probes sent at the same times to an idle server in the prober's thread: the machine's share. */
  controlP95Ms: number;
}

export interface Prober {
  /** Stops after the probe in progress and reports every probe since the start. */
  stop(): Promise<ProbeReport>;
}

const WORKER_TAG = 'liveness-prober';

export function startProber(options: ProberOptions): Prober {
  const worker = new Worker(new URL(import.meta.url), { workerData: { tag: WORKER_TAG, options } });
  const report = new Promise<ProbeReport>((resolve, reject) => {
    worker.once('message', (message: ProbeReport) => resolve(message));
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const result = await report;
      await worker.terminate();
      return result;
    },
  };
}

export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] as number;
}

/** Undefined when the probe succeeded, else why it failed. */
function probeOnce(url: string, timeoutMs: number): Promise<string | undefined> {
  if (!URL.canParse(url)) return Promise.resolve(`not a URL: ${url}`);
  const late = `no answer within ${timeoutMs} ms`;
  return new Promise((resolve) => {
    const headers = { connection: 'close' };
    const req = request(url, { agent: false, headers, signal: AbortSignal.timeout(timeoutMs) }, (res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      res.on('end', () => resolve(status >= 200 && status < 400 ? undefined : `status ${status}`));
      res.on('error', () => resolve(late));
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve(error.name === 'AbortError' ? late : (error.code ?? error.message)),
    );
    req.end();
  });
}

/** The probe's time and, if it failed, why. */
async function timedProbe(url: string, timeoutMs: number): Promise<{ ms: number; failure: string | undefined }> {
  const started = performance.now();
  const failure = await probeOnce(url, timeoutMs);
  return { ms: performance.now() - started, failure };
}

async function runProbes(options: ProberOptions): Promise<void> {
  let stopping = false;
  parentPort?.on('message', () => {
    stopping = true;
  });
  const control = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  const controlUrl = `http://127.0.0.1:${(control.address() as { port: number }).port}/`;
  const latencies: number[] = [];
  const controlLatencies: number[] = [];
  const failures: string[] = [];
  while (!stopping) {
    const [probe, controlProbe] = await Promise.all([
      timedProbe(options.url, options.timeoutMs),
      timedProbe(controlUrl, options.timeoutMs),
    ]);
    latencies.push(probe.ms);
    controlLatencies.push(controlProbe.ms);
    if (probe.failure) failures.push(probe.failure);
    const wait = options.intervalMs - probe.ms;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  control.close();
  const report: ProbeReport = {
    count: latencies.length,
    failures,
    p50Ms: percentile(latencies, 0.5),
    p95Ms: percentile(latencies, 0.95),
    maxMs: Math.max(0, ...latencies),
    controlP95Ms: percentile(controlLatencies, 0.95),
  };
  parentPort?.postMessage(report);
}

if (!isMainThread && (workerData as { tag?: string } | undefined)?.tag === WORKER_TAG) {
  void runProbes((workerData as { options: ProberOptions }).options);
}
