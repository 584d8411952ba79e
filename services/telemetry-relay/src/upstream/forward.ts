// Delivery's send: one POST through a keep-alive undici Pool per origin, its answer classified: delivered,
// rate_limited, rejected (other 4xx: retrying gets the same answer) or failed (network, timeout, 5xx, 408: retried).
// `Pool.dispatch` rather than `request()`: no response stream or promise per send (docs/decisions/002-*).
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { Pool } from 'undici';
import { type ParsedLimit, parseRateLimits } from '../envelope/rate-limit-header.ts';
import { type FileBody, fileBodyStream } from './streamed-body.ts';

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
  /** Requests in flight per connection (HTTP/1.1 pipelining); 1 = none. */
  pipelining: number;
  connectTimeoutMs: number;
  /** Time to the response headers, and between body chunks. */
  requestTimeoutMs: number;
}

/** What `send` takes: bytes in memory, or a body file streamed (the caller closes its handle afterwards). */
export type OutgoingBody = Buffer | FileBody;

export interface Forwarder {
  send(url: string, body: OutgoingBody, headers: Readonly<Record<string, string>>): Promise<ForwardResult>;
  /** Closes every connection, aborting sends still in flight. */
  close(): Promise<void>;
}

const DETAIL_BYTES = 300;

/**
 * A body larger than this is handed to the socket a piece at a time, with a turn of the event loop in between
 * (undici waits for 'drain' only once the socket's buffer is full, and loopback buffers take megabytes): one write
 * of a 10 MiB envelope would copy into the kernel for milliseconds while every other request waits.
 */
const WRITE_CHUNK_BYTES = 256 * 1024;

async function* inChunks(body: Buffer): AsyncGenerator<Buffer> {
  for (let offset = 0; offset < body.length; offset += WRITE_CHUNK_BYTES) {
    if (offset > 0) await new Promise((resolve) => setImmediate(resolve));
    yield body.subarray(offset, offset + WRITE_CHUNK_BYTES);
  }
}

export function createForwarder(options: ForwarderOptions): Forwarder {
  const pools = new Map<string, Pool>();
  const targets = new Map<string, { pool: Pool; path: string }>();
  const targetFor = (url: string) => {
    let target = targets.get(url);
    if (!target) {
      const parsed = new URL(url);
      let pool = pools.get(parsed.origin);
      if (!pool) {
        pool = new Pool(parsed.origin, {
          connections: options.connectionsPerOrigin,
          connect: { timeout: options.connectTimeoutMs },
          headersTimeout: options.requestTimeoutMs,
          bodyTimeout: options.requestTimeoutMs,
          keepAliveTimeout: 4_000,
          pipelining: options.pipelining,
        });
        pools.set(parsed.origin, pool);
      }
      target = { pool, path: `${parsed.pathname}${parsed.search}` };
      if (targets.size < 1000) targets.set(url, target);
    }
    return target;
  };

  return {
    send(url, body, headers) {
      const { pool, path } = targetFor(url);
      let payload: Buffer | Readable;
      let stream: Readable | undefined;
      if (Buffer.isBuffer(body)) {
        payload = body.length > WRITE_CHUNK_BYTES ? Readable.from(inChunks(body), { objectMode: false }) : body;
      } else {
        stream = fileBodyStream(body);
        payload = stream;
      }
      return new Promise((resolve) => {
        let status = 0;
        let responseHeaders: IncomingHttpHeaders = {};
        let detail = '';
        pool.dispatch(
          {
            method: 'POST',
            path,
            headers: {
              ...headers,
              'content-type': 'application/x-sentry-envelope',
              'content-length': String(body.length),
            },
            body: payload,
          },
          {
            onRequestStart() {},
            onResponseStart(_controller, statusCode, received) {
              status = statusCode;
              responseHeaders = received;
            },
            onResponseData(_controller, chunk) {
              if (status >= 300 && detail.length < DETAIL_BYTES) detail += chunk.toString('utf8', 0, DETAIL_BYTES);
            },
            onResponseEnd() {
              stream?.destroy(); // answered before the whole file was read (a 413, say): stop reading it
              resolve(classify(status, responseHeaders, detail.slice(0, DETAIL_BYTES)));
            },
            onResponseError(_controller, error) {
              const err = error as Error & { code?: string };
              stream?.destroy();
              resolve({ outcome: 'failed', status: err.code ?? err.name, limits: [], detail: err.message });
            },
          },
        );
      });
    },
    // Called at shutdown after delivery has waited for the sends in flight and kept a copy of the rest: whatever
    // is still open is aborted rather than waited for (it would hold the process up to UPSTREAM_TIMEOUT_MS).
    async close() {
      await Promise.all([...pools.values()].map((pool) => pool.destroy()));
      pools.clear();
      targets.clear();
    },
  };
}

function classify(status: number, headers: IncomingHttpHeaders, detail: string): ForwardResult {
  const limits = parseRateLimits(status, {
    'x-sentry-rate-limits': headerValue(headers['x-sentry-rate-limits']),
    'retry-after': headerValue(headers['retry-after']),
  });
  if (status >= 200 && status < 300) return { outcome: 'delivered', status, limits };
  if (status === 429) return { outcome: 'rate_limited', status, limits, detail };
  if (status >= 500 || status === 408) return { outcome: 'failed', status, limits, detail };
  return { outcome: 'rejected', status, limits, detail };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
