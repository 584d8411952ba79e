// Hostile traffic for the relay container suite (containers/relay-hostile.test.ts): attack bodies, requests whose
// outcome is classified (answered, reset, no answer), attackers and a steady trickle of legitimate envelopes from
// client addresses of their own. (Slow clients are @app/test-kit's.)
import { createHash, randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { errorEnvelope, newEventId } from './containers.ts';

const MiB = 1024 * 1024;

// ---- attack bodies --------------------------------------------------------------------------------------------

const brotliMax = (input: Buffer | string) =>
  zlib.brotliCompressSync(input, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_LGWIN]: 24 },
  });

/**
 * ≈150 bytes of brotli that expand to a valid envelope header and `items` item headers, each a 64 KiB line of
 * `[` nested ≈32 000 deep inside a valid object (a length-0 attachment), i.e. ≈19 MiB of JSON to parse.
 */
export function nestingBomb(dsn: string, eventId: string, items = 300): Body {
  const prefix = '{"type":"attachment","length":0,"x":';
  const depth = Math.floor((64 * 1024 - prefix.length - 1) / 2);
  const line = `${prefix}${'['.repeat(depth)}${']'.repeat(depth)}}\n\n`;
  return brotliMax(`${JSON.stringify({ event_id: eventId, dsn })}\n${line.repeat(items)}`);
}

export type BombEncoding = 'br' | 'gzip' | 'zstd';

/** A valid envelope header followed by spaces up to exactly `size` bytes (the relay's envelope limit), compressed. */
export function decompressionBomb(encoding: BombEncoding, dsn: string, size = 20 * MiB): Body {
  const header = `${JSON.stringify({ dsn })}\n`;
  const plain = Buffer.alloc(size, ' ');
  plain.write(header);
  if (encoding === 'br') return brotliMax(plain);
  if (encoding === 'gzip') return zlib.gzipSync(plain, { level: 9 });
  return zlib.zstdCompressSync(plain, { params: { [zlib.constants.ZSTD_c_compressionLevel]: 19 } });
}

/** An error event with one attachment of `attachmentBytes` random (incompressible) bytes, sent as it is. */
export function attachmentEnvelope(dsn: string, eventId: string, attachmentBytes: number) {
  const attachment = randomBytes(attachmentBytes);
  const head = errorEnvelope(dsn, eventId, `hostile e2e attachment ${eventId}`);
  const itemHeader = `${JSON.stringify({ type: 'attachment', length: attachment.length, filename: 'dump.bin' })}\n`;
  const body = Buffer.concat([Buffer.from(head + itemHeader), attachment, Buffer.from('\n')]);
  return { body, sha256: createHash('sha256').update(attachment).digest('hex') };
}

// ---- requests -------------------------------------------------------------------------------------------------

/** What became of one request: an HTTP answer, the connection closed without one, or nothing in time. */
export interface Answer {
  status: number | 'reset' | 'timeout';
  /** The JSON body's `error` and `detail`, when it has them. */
  error?: string | undefined;
  detail?: string | undefined;
  retryAfter?: string | undefined;
  eventId?: string | undefined;
  /** Bytes of the answer's body. */
  bodyBytes?: number | undefined;
}

/** A request body fetch takes as it is (a Buffer over its own ArrayBuffer, as Node's builders return). */
export type Body = string | Uint8Array<ArrayBuffer>;

export async function post(
  url: string,
  body: Body,
  headers: Record<string, string> = {},
  timeoutMs = 15_000,
): Promise<Answer> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', ...headers },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    const json = (() => {
      try {
        return JSON.parse(text) as { error?: unknown; detail?: unknown; id?: unknown };
      } catch {
        return {};
      }
    })();
    return {
      status: response.status,
      error: typeof json.error === 'string' ? json.error : undefined,
      detail: typeof json.detail === 'string' ? json.detail : undefined,
      retryAfter: response.headers.get('retry-after') ?? undefined,
      eventId: typeof json.id === 'string' ? json.id : undefined,
      bodyBytes: Buffer.byteLength(text),
    };
  } catch (error) {
    return { status: (error as Error).name === 'TimeoutError' ? 'timeout' : 'reset' };
  }
}

/**
 * An attack is refused cleanly by a 4xx or a 503 with a JSON {"error","detail"}, or by the connection being closed
 * early (a relay that refuses before reading a body may reset it mid-upload). Never a 500, a 200 or no answer.
 */
export function isCleanRefusal(answer: Answer): boolean {
  if (answer.status === 'reset') return true;
  if (answer.status === 'timeout') return false;
  const refused = (answer.status >= 400 && answer.status < 500) || answer.status === 503;
  return refused && answer.error !== undefined && answer.detail !== undefined;
}

/** Counts of answers by status, e.g. {"413": 12, "reset": 3}. */
export function tally(answers: readonly Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/**
 * Where a request comes from, as the ingress tells the relay (X-Forwarded-For, believed for the ConfigMap's
 * TRUSTED_PROXY_HOPS=1): attackers and legitimate users from different documentation ranges (RFC 5737), so a relay
 * that shares its memory fairly between clients can tell them apart as it would in production.
 */
export const attackerAddress = (n: number) => ({ 'x-forwarded-for': `203.0.113.${(n % 250) + 1}` });
export const userAddress = (n: number) => ({ 'x-forwarded-for': `198.51.100.${(n % 250) + 1}` });

export interface Traffic {
  /** Stops sending, waits for the requests in flight, and returns every answer with its event id. */
  stop(): Promise<{ eventId: string; answer: Answer }[]>;
}

/** The ordinary ≈1 KB error envelope, one every `everyMs` (each on its own, not waiting for the previous one). */
export function legitimateTraffic(url: string, dsn: string, everyMs = 250, timeoutMs = 10_000): Traffic {
  const inFlight: Promise<{ eventId: string; answer: Answer; ms: number }>[] = [];
  const send = () => {
    const eventId = newEventId();
    const started = performance.now();
    const answer = post(url, errorEnvelope(dsn, eventId), userAddress(inFlight.length), timeoutMs);
    inFlight.push(answer.then((settled) => ({ eventId, answer: settled, ms: performance.now() - started })));
  };
  send();
  const timer = setInterval(send, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      return Promise.all(inFlight);
    },
  };
}

export interface AttackRequest {
  /** How the figures group this request's answer ("allowed DSN", "gzip", …). */
  label: string;
  body: Body;
  headers?: Record<string, string>;
}

export interface AttackOptions {
  /** Attackers sending at once, each from its own client address. */
  workers: number;
  windowMs: number;
  /** Each attacker waits this long between two of its requests (0: back to back). */
  pauseMs?: number;
  /** A request still unanswered this long after the window counts as 'timeout'. */
  graceMs?: number;
}

/** Attackers send requests for a window of time; the attack ends by itself whatever the relay does. */
export async function attackFor(
  url: string,
  options: AttackOptions,
  next: (worker: number, n: number) => AttackRequest,
): Promise<{ label: string; answer: Answer }[]> {
  const { workers, windowMs, pauseMs = 0, graceMs = 7_000 } = options;
  const results: { label: string; answer: Answer }[] = [];
  const end = Date.now() + windowMs;
  const worker = async (w: number) => {
    for (let n = 0; Date.now() < end; n++) {
      const request = next(w, n);
      const headers = { ...attackerAddress(w), ...request.headers };
      const answer = await post(url, request.body, headers, end + graceMs - Date.now());
      results.push({ label: request.label, answer });
      // A relay that is gone answers every connection at once: do not spin thousands of them a second.
      const pause = answer.status === 'reset' ? Math.max(pauseMs, 50) : pauseMs;
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  return results;
}
