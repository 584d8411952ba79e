import type { LoaderFunctionArgs } from 'react-router';
import { notFound } from '../signals.ts';

/** The deliberate failures (only routed when DIAGNOSTICS=1). */
export const FAILURES = ['server-error', 'render-error', 'client-error', 'ignored-error'] as const;
export type Failure = (typeof FAILURES)[number];

export interface DiagnosticsData {
  failure: Failure;
}

export function diagnosticsLoader({ params }: LoaderFunctionArgs): DiagnosticsData {
  const failure = FAILURES.find((f) => f === params.failure);
  if (!failure) notFound();
  // The message must never reach the browser: the tests look for it in HTML and JSON.
  if (failure === 'server-error') throw new Error('diagnostics: loader failure (secret-internal-detail)');
  return { failure };
}
