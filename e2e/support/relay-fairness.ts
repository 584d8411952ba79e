// Traffic for the relay's fairness cases (e2e/containers/relay-hostile.test.ts): big uncompressed envelopes sent
// at once without copying them per request, compressible uploads that spool ~19 MiB each, and the addresses of one
// IPv6 /64 as the ingress reports them (X-Forwarded-For, TRUSTED_PROXY_HOPS=1: the path the relay's code takes).
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { errorEnvelope, newEventId } from './containers.ts';
import type { Answer } from './hostile.ts';

/** The n-th address of one /64 (2001:db8:bad:1::/64, documentation space). */
export const sameSixtyFour = (n: number) => ({ 'x-forwarded-for': `2001:db8:bad:1:${(n + 1).toString(16)}::1` });

/** An envelope whose attachment is `attachment`, as parts to write one after the other (no copy per request). */
export function envelopeParts(dsn: string, eventId: string, attachment: Buffer): Buffer[] {
  const head = errorEnvelope(dsn, eventId, `hostile e2e big envelope ${eventId}`);
  const itemHeader = `${JSON.stringify({ type: 'attachment', length: attachment.length, filename: 'dump.bin' })}\n`;
  return [Buffer.from(head + itemHeader), attachment, Buffer.from('\n')];
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export const randomAttachment = (bytes: number) => randomBytes(bytes);

/**
 * One gzip body per call, ≈210 KB expanding to ≈`bytes` (under the relay's 100:1 ratio): the "compressible
 * 200 KB uploads", each spooled at its full size.
 */
export function compressibleEnvelope(dsn: string, eventId: string, bytes: number): Promise<Buffer> {
  const attachment = Buffer.alloc(bytes);
  const noise = randomBytes(Math.floor(bytes / 256));
  for (let i = 0; i < noise.length; i++) attachment[i * 256] = noise[i] as number;
  // Off the test's thread: a synchronous second per body would let keep-alive sockets go stale under it.
  return promisify(gzip)(Buffer.concat(envelopeParts(dsn, eventId, attachment)));
}

/** POSTs `parts` as one body; the answer as hostile.ts's `post` reports it. */
export function postParts(
  url: string,
  parts: readonly Buffer[],
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<Answer> {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  return new Promise((resolve) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'content-length': String(length), ...headers },
      signal: AbortSignal.timeout(timeoutMs),
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        let json: { error?: unknown; detail?: unknown; id?: unknown } = {};
        try {
          json = JSON.parse(Buffer.concat(chunks).toString());
        } catch {}
        resolve({
          status: res.statusCode ?? 0,
          error: typeof json.error === 'string' ? json.error : undefined,
          detail: typeof json.detail === 'string' ? json.detail : undefined,
          retryAfter: typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : undefined,
          eventId: typeof json.id === 'string' ? json.id : undefined,
        });
      });
      res.on('error', () => resolve({ status: 'reset' }));
    });
    req.on('error', (error) => resolve({ status: error.name === 'AbortError' ? 'timeout' : 'reset' }));
    for (const part of parts) req.write(part);
    req.end();
  });
}

/**
 * `count` clients upload one big envelope each, all at once, retrying a 429/503 after its Retry-After (at most
 * 10 s) as the SDK's transport does, and a 408 (the suite's 5 s body timeout cut a slow upload) after 1 s, until
 * `deadline`. Returns every answer and the event ids answered 200.
 */
export async function bigUploadsAtOnce(options: {
  url: string;
  dsn: string;
  count: number;
  attachment: Buffer;
  address: (n: number) => Record<string, string>;
  deadline: number;
}): Promise<{ answers: Answer[]; accepted: string[] }> {
  const answers: Answer[] = [];
  const accepted: string[] = [];
  const one = async (n: number) => {
    const eventId = newEventId();
    const parts = envelopeParts(options.dsn, eventId, options.attachment);
    while (Date.now() < options.deadline) {
      const answer = await postParts(options.url, parts, options.address(n), options.deadline - Date.now());
      answers.push(answer);
      if (answer.status === 200) {
        accepted.push(eventId);
        return;
      }
      if (answer.status !== 429 && answer.status !== 503 && answer.status !== 408) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(Number(answer.retryAfter ?? 1), 10) * 1_000));
    }
  };
  await Promise.all(Array.from({ length: options.count }, (_, n) => one(n)));
  return { answers, accepted };
}
