/** The deliberate failures (only routed when DIAGNOSTICS=1). */
export const FAILURES = [
  'server-error',
  'render-error',
  'client-error',
  'hydration-error',
  'ignored-error',
  'deferred-error',
  'unavailable',
  'status-500',
] as const;
export type Failure = (typeof FAILURES)[number];
