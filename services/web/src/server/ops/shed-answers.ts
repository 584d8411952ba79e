// The 503 a shed request gets: built once per reason from prebuilt headers, so a refusal allocates nothing of its own.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Metrics } from './metrics.ts';

export interface Refusal {
  reason: string;
  body: string;
  headers: OutgoingHttpHeaders;
  counter: { inc(): void };
}

/** The answer to a request refused for a reason, made on its first use and kept. */
export function refusalAnswers(retryAfterSeconds: number, metrics: Metrics): (reason: string) => Refusal {
  const refusals = new Map<string, Refusal>();
  return (reason) => {
    const built = refusals.get(reason);
    if (built) return built;
    const body = `The service is overloaded (${reason}); retry in ${retryAfterSeconds} s.\n`;
    const headers = {
      'retry-after': String(retryAfterSeconds),
      'cache-control': 'no-store',
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-content-type-options': 'nosniff',
    };
    const refusal = { reason, body, headers, counter: metrics.shedRequests.labels(reason) };
    refusals.set(reason, refusal);
    return refusal;
  };
}

/** Writes the refusal: a string body goes out with the head in one write. */
export function writeRefusal(res: ServerResponse, refusal: Refusal): void {
  res.writeHead(503, refusal.headers);
  res.end(refusal.body);
}
