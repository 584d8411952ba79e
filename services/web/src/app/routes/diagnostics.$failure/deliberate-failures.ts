// The deliberate failures the diagnostics page offers (only routed when DIAGNOSTICS=1), for the end-to-end tests.
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
