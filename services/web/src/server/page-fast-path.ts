// Page GETs (documents and page data) answered ahead of Fastify, by the same page code (pages/document.ts,
// pages/page-data.ts) and the same hooks' functions: security headers and nonces (security.ts), request id
// (service-kit), metrics (metrics.ts), the sampled request log (request-log.ts), compression (compression.ts) and the
// failure screen (failures.ts). Fastify's request and reply objects, routing, hook chain and per-request child logger
// cost more than all of these (docs/decisions/009-page-gets-ahead-of-fastify.md). Everything else, and every request
// while the service drains or closes, goes to Fastify.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { finished } from 'node:stream';
import { type Readiness, requestIdFrom } from '@app/service-kit';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { asksForPageData } from '../framework/page-data-protocol.ts';
import { compressPayload } from './http/compression.ts';
import type { CspNonces, SecurityHeaders } from './http/security-headers.ts';
import { type Metrics, observeRequest } from './ops/metrics.ts';
import { loggedUrl, type RequestLog, withTraceId } from './ops/request-log.ts';
import { answerDocument } from './pages/document.ts';
import { answerServerFailure } from './pages/failures.ts';
import { answerPageData } from './pages/page-data.ts';
import type { PageReply, PageRequest } from './pages/page-io.ts';
import { pageHeaders } from './pages/page-route.ts';
import type { Pages } from './pages/query.ts';

/** The route a page answered here is labelled with until the router names its pattern (as Fastify's would be). */
const PAGES_ROUTE = '/*';

export interface PagePathParts {
  pages: Pages;
  /** False for the paths Fastify has other routes for (probes, metrics, assets, the tunnel). */
  isPage: (path: string) => boolean;
  security: SecurityHeaders;
  metrics: Metrics;
  requestLog: RequestLog;
  readiness: Readiness;
  /** Fastify's trustProxy function: whether the peer at `hop` may say what the browser used (X-Forwarded-*). */
  trustProxy: (address: string, hop: number) => boolean;
  /** TRUSTED_PROXY_HOPS: whether an incoming X-Request-Id is the edge's (service-kit's requestIdFrom). */
  trustedProxyHops: number;
}

export interface PageFastPath {
  /** Wraps the server's request listener: a page GET is answered here, the rest go to `next`. */
  ahead(next: RequestListener): RequestListener;
  /** Serves page GETs from when `app` is ready until it starts closing. */
  register(app: FastifyInstance, parts: PagePathParts): void;
}

/** The last of a header's comma-separated values (the nearest proxy's), as Fastify reads X-Forwarded-*. */
const lastEntry = (value: string) => value.slice(value.lastIndexOf(',') + 1).trim();

class FastRequest implements PageRequest {
  routePattern?: string;
  readonly raw: IncomingMessage;
  readonly #parts: PagePathParts;
  readonly #baseLog: FastifyBaseLogger;
  readonly #bindings: Record<string, unknown>;
  #log: FastifyBaseLogger | undefined;

  constructor(
    raw: IncomingMessage,
    parts: PagePathParts,
    baseLog: FastifyBaseLogger,
    bindings: Record<string, unknown>,
  ) {
    this.raw = raw;
    this.#parts = parts;
    this.#baseLog = baseLog;
    this.#bindings = bindings;
  }
  get method() {
    return this.raw.method ?? 'GET';
  }
  get url() {
    return this.raw.url ?? '/';
  }
  get headers() {
    return this.raw.headers;
  }
  /** As Fastify's request.host and request.protocol with the same trustProxy. */
  get host() {
    const forwarded = this.raw.headers['x-forwarded-host'];
    if (forwarded && this.trusted()) return lastEntry(forwarded as string);
    return this.raw.headers.host ?? '';
  }
  get protocol() {
    const forwarded = this.raw.headers['x-forwarded-proto'];
    if (forwarded && this.trusted()) return lastEntry(forwarded as string);
    return (this.raw.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  }
  /** Made on first use: most requests log nothing of their own. */
  get log() {
    this.#log ??= this.#baseLog.child(this.#bindings);
    return this.#log;
  }
  private trusted() {
    return this.#parts.trustProxy(this.raw.socket.remoteAddress ?? '', 0);
  }
}

class FastReply implements PageReply {
  statusCode = 200;
  readonly raw: ServerResponse;
  readonly cspNonce: CspNonces;
  readonly #request: FastRequest;
  readonly #parts: PagePathParts;
  #sent = false;

  constructor(raw: ServerResponse, cspNonce: CspNonces, request: FastRequest, parts: PagePathParts) {
    this.raw = raw;
    this.cspNonce = cspNonce;
    this.#request = request;
    this.#parts = parts;
  }
  code(status: number) {
    this.statusCode = status;
    return this;
  }
  header(name: string, value: unknown) {
    // As Fastify's reply.header: a second Set-Cookie adds one, any other header is replaced.
    if (name.toLowerCase() === 'set-cookie') this.raw.appendHeader(name, value as string);
    else this.raw.setHeader(name, value as string);
    return this;
  }
  type(contentType: string) {
    return this.header('content-type', contentType);
  }
  hasHeader(name: string) {
    return this.raw.hasHeader(name);
  }
  getHeader(name: string) {
    return this.raw.getHeader(name);
  }
  removeHeader(name: string) {
    this.raw.removeHeader(name);
    return this;
  }
  send(payload?: string | Buffer | NodeJS.ReadableStream) {
    const res = this.raw;
    if (this.#sent || res.headersSent) {
      this.#request.log.warn({ url: loggedUrl(this.#request.url) }, 'reply was already sent');
      return this;
    }
    this.#sent = true;
    const { pages, readiness } = this.#parts;
    const body = pages.options.compression ? compressPayload(this.#request, this, payload) : payload;
    // As service-kit's onSend hook: a response while draining closes its connection.
    if (readiness.draining) res.setHeader('connection', 'close');
    res.statusCode = this.statusCode;
    if (body === undefined || body === null) {
      res.setHeader('content-length', '0');
      res.end();
    } else if (typeof body === 'string' || Buffer.isBuffer(body)) {
      res.setHeader('content-length', Buffer.byteLength(body));
      res.end(body);
    } else {
      sendStream(body as NodeJS.ReadableStream & { destroy?: () => void }, res, this.#request);
    }
    return this;
  }
}

/** A streamed body piped to the response: a stream that fails cuts the response, a response cut stops the stream. */
function sendStream(body: NodeJS.ReadableStream & { destroy?: () => void }, res: ServerResponse, req: PageRequest) {
  let open = true;
  finished(body, (error) => {
    open = false;
    if (!error) return;
    req.log.error({ err: error }, 'response stream failed');
    res.destroy();
  });
  finished(res, () => {
    if (open) body.destroy?.();
  });
  body.pipe(res);
}

/** A page GET Fastify would route to the pages: anything with a percent sign is left to its router's decoding. */
function isPageGet(req: IncomingMessage, parts: PagePathParts): boolean {
  const url = req.url;
  if (req.method !== 'GET' || !url || url.charCodeAt(0) !== 47 /* / */ || url.includes('%')) return false;
  const query = url.indexOf('?');
  return parts.isPage(query === -1 ? url : url.slice(0, query));
}

function servePage(req: IncomingMessage, res: ServerResponse, parts: PagePathParts, log: FastifyBaseLogger) {
  const started = performance.now();
  const requestId = requestIdFrom(req, parts.trustedProxyHops);
  res.setHeader('x-request-id', requestId);
  const request = new FastRequest(req, parts, log, withTraceId({ requestId }));
  res.once('finish', () => {
    const finishedRequest = {
      method: request.method,
      url: request.url,
      routePattern: request.routePattern,
      routeUrl: PAGES_ROUTE,
      status: res.statusCode,
      elapsedMs: performance.now() - started,
    };
    observeRequest(parts.metrics, finishedRequest);
    parts.requestLog(request, finishedRequest);
  });
  let nonces: CspNonces;
  try {
    nonces = parts.security(req, res);
  } catch (error) {
    answerServerFailure(error, 500, request, new FastReply(res, { script: '', style: '' }, request, parts));
    return;
  }
  const reply = new FastReply(res, nonces, request, parts);
  pageHeaders(reply);
  const answer = asksForPageData(req.headers) ? answerPageData : answerDocument;
  answer(parts.pages, request, reply).catch((error: unknown) => {
    if (res.headersSent) {
      request.log.error({ err: error }, 'page failed after its headers were sent');
      res.destroy();
      return;
    }
    answerServerFailure(error, 500, request, reply);
  });
}

export function createPageFastPath(): PageFastPath {
  let parts: PagePathParts | undefined;
  let log: FastifyBaseLogger | undefined;
  let closing = false;
  return {
    ahead: (next) => (req, res) => {
      if (!parts || !log || closing || parts.readiness.draining || !isPageGet(req, parts)) return next(req, res);
      servePage(req, res, parts, log);
    },
    register(app, pageParts) {
      app.addHook('onReady', async () => {
        parts = pageParts;
        log = app.log;
      });
      // Closing: Fastify answers new requests 503 and closes connections; draining: it adds Connection: close.
      app.addHook('preClose', async () => {
        closing = true;
      });
    },
  };
}
