import type { LoaderFunctionArgs } from 'react-router';
import { notFound } from '../signals.ts';

import { FAILURES, type Failure } from './failures.ts';

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
