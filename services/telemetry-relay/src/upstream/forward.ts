import { Pool } from 'undici';
import { type ParsedLimit, parseRateLimits } from '../pipeline/rate-limit.ts';

/**
 * Stage 7: one POST of an envelope upstream, through a keep-alive undici Pool per upstream origin, with connect,
 * header and body timeouts. The answer is classified for the delivery stage: delivered (2xx), rate-limited (429),
 * rejected for good (other 4xx: retrying would get the same answer) or failed (network error, timeout, 5xx, 408:
 * keep it and retry later).
 */

export type ForwardOutcome = 'delivered' | 'rate_limited' | 'rejected' | 'failed';

export interface ForwardResult {
  outcome: ForwardOutcome;
  /** HTTP status, or an error code ('UND_ERR_CONNECT_TIMEOUT', 'ECONNREFUSED', …) when there was no answer. */
  status: number | string;
  limits: ParsedLimit[];
  /** What went wrong, for the log (a snippet of the upstream's answer or the error message). */
  detail?: string;
}

export interface ForwarderOptions {
  connectionsPerOrigin: number;
  connectTimeoutMs: number;
  /** Time to the response headers, and between body chunks. */
  requestTimeoutMs: number;
}

export interface Forwarder {
  send(url: string, body: Buffer, headers: Readonly<Record<string, string>>): Promise<ForwardResult>;
  close(): Promise<void>;
}

export function createForwarder(options: ForwarderOptions): Forwarder {
  const pools = new Map<string, Pool>();
  const poolFor = (origin: string): Pool => {
    let pool = pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: options.connectionsPerOrigin,
        connect: { timeout: options.connectTimeoutMs },
        headersTimeout: options.requestTimeoutMs,
        bodyTimeout: options.requestTimeoutMs,
        keepAliveTimeout: 4_000,
      });
      pools.set(origin, pool);
    }
    return pool;
  };

  return {
    async send(url, body, headers) {
      const target = new URL(url);
      try {
        const response = await poolFor(target.origin).request({
          method: 'POST',
          path: `${target.pathname}${target.search}`,
          headers: {
            ...headers,
            'content-type': 'application/x-sentry-envelope',
            'content-length': String(body.length),
          },
          body,
        });
        const status = response.statusCode;
        const limits = parseRateLimits(status, {
          'x-sentry-rate-limits': headerValue(response.headers['x-sentry-rate-limits']),
          'retry-after': headerValue(response.headers['retry-after']),
        });
        if (status >= 200 && status < 300) {
          await response.body.dump();
          return { outcome: 'delivered', status, limits };
        }
        const detail = (await response.body.text()).slice(0, 300);
        if (status === 429) return { outcome: 'rate_limited', status, limits, detail };
        if (status >= 500 || status === 408) return { outcome: 'failed', status, limits, detail };
        return { outcome: 'rejected', status, limits, detail };
      } catch (error) {
        const err = error as Error & { code?: string };
        return { outcome: 'failed', status: err.code ?? err.name, limits: [], detail: err.message };
      }
    },
    async close() {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
      pools.clear();
    },
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
