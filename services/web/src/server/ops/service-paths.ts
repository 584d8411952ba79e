// The paths that are not pages: the probes, the metrics and the hashed assets. They are never shed (load-shedding.ts)
// and never traced (instrument.ts, which loads this before the SDK: it must import nothing).
const PROBES_AND_METRICS = new Set(['/healthz', '/readyz', '/metrics']);

/** `path` without its query string. */
export const isProbeOrAsset = (path: string): boolean => PROBES_AND_METRICS.has(path) || path.startsWith('/assets/');
