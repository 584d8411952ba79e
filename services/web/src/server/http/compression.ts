// Documents and page data compressed on the fly (assets at build time: static-assets.ts): brotli at quality 4 (about
// gzip's CPU for a smaller result), else gzip. A whole body is compressed in one call; a streamed one is flushed after
// each React flush, so the shell reaches the browser before the rest is rendered.
import type { IncomingHttpHeaders } from 'node:http';
import { Readable, type Transform } from 'node:stream';
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

export type Encoding = 'br' | 'gzip';
const BROTLI_QUALITY = 4;
const GZIP_LEVEL = 6;
/** Smaller bodies (a redirect's JSON, say) are sent as they are: compressing them saves less than it costs. */
const MIN_COMPRESS_BYTES = 1024;
const COMPRESSIBLE_TYPE = /^(?:text\/html|application\/json|application\/x-ndjson)\b/;

/** The encoding to use for an Accept-Encoding header: brotli before gzip, none when neither is accepted. */
export function chooseEncoding(header: string | undefined): Encoding | undefined {
  if (!header) return undefined;
  const accepted = new Set<string>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q && !(Number(q.slice(2)) > 0)) continue;
    accepted.add(name.trim());
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return undefined;
}

export function compressBuffer(body: Buffer, encoding: Encoding): Buffer {
  return encoding === 'br'
    ? brotliCompressSync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      })
    : gzipSync(body, { level: GZIP_LEVEL });
}

/** A compressing stream that flushes after every write, so each chunk it is given goes out at once. */
function flushingZip(encoding: Encoding): Transform {
  return encoding === 'br'
    ? createBrotliCompress({
        flush: constants.BROTLI_OPERATION_FLUSH,
        params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY },
      })
    : createGzip({ level: GZIP_LEVEL, flush: constants.Z_SYNC_FLUSH });
}

/** A streamed body (a document still streaming, page data's JSON lines), compressed and flushed per chunk. */
function compressStream(body: NodeJS.ReadableStream, encoding: Encoding): Readable {
  const zip = flushingZip(encoding);
  const source = body instanceof Readable ? body : Readable.from(body);
  source.on('error', (error) => zip.destroy(error));
  zip.on('close', () => {
    if (!source.readableEnded) source.destroy();
  });
  return source.pipe(zip);
}

/** The reply's headers, as Fastify's reply gives them. */
export interface ReplyHeaders {
  getHeader(name: string): unknown;
  hasHeader(name: string): boolean;
  header(name: string, value: unknown): unknown;
  removeHeader(name: string): unknown;
}

function varyOnEncoding(reply: ReplyHeaders): void {
  const vary = reply.getHeader('vary');
  const current = typeof vary === 'string' ? vary : '';
  if (/(?:^|,)\s*(?:accept-encoding|\*)\s*(?:,|$)/i.test(current)) return;
  reply.header('vary', current ? `${current}, Accept-Encoding` : 'Accept-Encoding');
}

/** An HTML or JSON payload compressed as the request accepts (headers set on the reply), else as it was. */
export function compressPayload(
  req: { method: string; headers: IncomingHttpHeaders },
  reply: ReplyHeaders,
  payload: unknown,
): unknown {
  const type = String(reply.getHeader('content-type') ?? '');
  if (!COMPRESSIBLE_TYPE.test(type) || reply.hasHeader('content-encoding')) return payload;
  varyOnEncoding(reply);
  const encoding = chooseEncoding(req.headers['accept-encoding']);
  if (!encoding || req.method === 'HEAD' || payload === null || payload === undefined) return payload;
  if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
    const raw = typeof payload === 'string' ? Buffer.from(payload) : payload;
    if (raw.length < MIN_COMPRESS_BYTES) return payload;
    reply.header('content-encoding', encoding);
    reply.removeHeader('content-length');
    return compressBuffer(raw, encoding);
  }
  if (typeof (payload as NodeJS.ReadableStream).pipe !== 'function') return payload;
  reply.header('content-encoding', encoding);
  reply.removeHeader('content-length');
  return compressStream(payload as NodeJS.ReadableStream, encoding);
}

/** Compresses the HTML and JSON responses of the plugin it is registered in (an onSend hook). */
export function compressResponses(app: FastifyInstance): void {
  app.addHook('onSend', function compressResponse(req, reply, payload, done) {
    done(null, compressPayload(req, reply, payload));
  });
}
