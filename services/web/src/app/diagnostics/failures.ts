/** The deliberate failures (only routed when DIAGNOSTICS=1). */
export const FAILURES = ['server-error', 'render-error', 'client-error', 'ignored-error'] as const;
export type Failure = (typeof FAILURES)[number];
