// The diagnostics loader: fails on purpose in the way the URL names (throw, status, deferred error) for the tests.
import { setTimeout as sleep } from 'node:timers/promises';
import { data, type LoaderFunctionArgs } from 'react-router';
import { routeSettings } from '../../settings.ts';
import { notFound } from '../../signals.ts';
import { FAILURES, type Failure } from './deliberate-failures.ts';

export interface DiagnosticsData {
  failure: Failure;
  /** deferred-error only: a deferred part that fails after the delay. */
  deferred?: Promise<string>;
}

export function loader({ params, request, context }: LoaderFunctionArgs): DiagnosticsData {
  const failure = FAILURES.find((f) => f === params.failure);
  if (!failure) notFound();
  // The message must never reach the browser: the tests look for it in HTML and JSON.
  if (failure === 'server-error') throw new Error('diagnostics: loader failure (secret-internal-detail)');
  // Deliberate statuses: a 503 (with its statusText) and a 500 that carries no digest.
  if (failure === 'unavailable') throw data(null, { status: 503, statusText: 'Service Unavailable' });
  if (failure === 'status-500') throw data(null, { status: 500, statusText: 'Internal Server Error' });
  if (failure === 'deferred-error') {
    const delay = context.get(routeSettings).relatedDelayMs;
    const deferred = sleep(delay, undefined, { signal: request.signal }).then(() => {
      throw new Error('diagnostics: deferred failure (secret-internal-detail)');
    });
    return { failure, deferred };
  }
  return { failure };
}
