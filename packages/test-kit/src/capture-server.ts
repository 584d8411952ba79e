// A local stand-in for Sentry's ingestion API (the one part of the system that cannot run here): it accepts
// `POST /api/<project>/envelope/` like sentry.io does, records every envelope it accepts, and can be told to
// fail, stall, drop connections or rate-limit, so tests can watch what a relay or an SDK does about it.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import { type CapturedItem, type ParsedEnvelope, readEnvelope } from './envelope-reader.ts';

export type CaptureBehaviour =
  | { kind: 'accept' }
  /** Answer with this status (5xx for an outage, 413, …) and record nothing. */
  | { kind: 'fail'; status: number }
  /** Never answer (until the behaviour changes or the server closes). */
  | { kind: 'stall' }
  /** Destroy the connection without an answer: a network error for the client. */
  | { kind: 'drop' }
  /** 429 with Sentry's rate-limit headers; records nothing. */
  | { kind: 'rate-limit'; retryAfterSeconds: number; limits?: string };

export interface CapturedEnvelope extends ParsedEnvelope {
  projectId: string;
  /** sentry_key from the query, the X-Sentry-Auth header, or the envelope header's DSN. */
  publicKey: string | undefined;
  /** Request headers as received (lower-case names). */
  requestHeaders: Record<string, string | string[] | undefined>;
  /** The decoded body, byte for byte. */
  body: Buffer;
  receivedAt: number;
}

export interface CaptureServer {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** A DSN addressed to this server: http://<publicKey>@127.0.0.1:<port>/<projectId>. */
  dsn(options?: { projectId?: string; publicKey?: string; host?: string }): string;
  /** The envelope endpoint of a project: http://127.0.0.1:<port>/api/<projectId>/envelope/. */
  envelopeUrl(projectId?: string): string;
  envelopes: CapturedEnvelope[];
  /** Every request that reached the endpoint, accepted or not. */
  requestCount(): number;
  /** All items of one type across the recorded envelopes. */
  items(type: string): CapturedItem[];
  /** Resolves with the first recorded envelope (past or future) that matches. */
  waitFor(predicate: (envelope: CapturedEnvelope) => boolean, timeoutMs?: number): Promise<CapturedEnvelope>;
  setBehaviour(behaviour: CaptureBehaviour): void;
  clear(): void;
  close(): Promise<void>;
}

const ENDPOINT = /^\/api\/([^/]+)\/envelope\/?(?:\?.*)?$/;
const MAX_BODY = 200 * 1024 * 1024;
const decoders: Record<string, (input: Buffer) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

export interface CaptureServerOptions {
  port?: number;
  host?: string;
  /**
   * Also serve a control API, for a capture server in a container that tests reach over HTTP:
   * GET /__capture/envelopes (JSON, payloads as text; see describe for large ones), DELETE /__capture/envelopes,
   * PUT /__capture/behaviour.
   */
  control?: boolean;
}

export async function startCaptureServer(options: CaptureServerOptions = {}): Promise<CaptureServer> {
  const envelopes: CapturedEnvelope[] = [];
  const waiters = new Set<{ predicate: (e: CapturedEnvelope) => boolean; resolve: (e: CapturedEnvelope) => void }>();
  const stalled = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  let behaviour: CaptureBehaviour = { kind: 'accept' };
  let requests = 0;

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: String(error) }));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (options.control && req.url?.startsWith('/__capture/')) {
      await control(req, res);
      return;
    }
    const match = ENDPOINT.exec(req.url ?? '');
    if (req.method !== 'POST' || !match?.[1]) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"not an envelope endpoint"}');
      return;
    }
    requests++;
    const current = behaviour;
    if (current.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    const raw = await readBody(req);
    if (current.kind === 'stall') {
      stalled.add(res);
      res.on('close', () => stalled.delete(res));
      return;
    }
    if (current.kind === 'fail') {
      res.writeHead(current.status, { 'content-type': 'application/json' }).end('{"detail":"told to fail"}');
      return;
    }
    if (current.kind === 'rate-limit') {
      res
        .writeHead(429, {
          'retry-after': String(current.retryAfterSeconds),
          'x-sentry-rate-limits': current.limits ?? `${current.retryAfterSeconds}::organization`,
          'content-type': 'application/json',
        })
        .end('{"detail":"rate limited"}');
      return;
    }
    const encoding = String(req.headers['content-encoding'] ?? '').toLowerCase();
    const decode = decoders[encoding];
    const body = decode ? await decode(raw) : raw;
    let parsed: ParsedEnvelope;
    try {
      parsed = readEnvelope(body);
    } catch (error) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: String(error) }));
      return;
    }
    const envelope: CapturedEnvelope = {
      ...parsed,
      projectId: match[1],
      publicKey: publicKeyOf(req, parsed.header),
      requestHeaders: { ...req.headers },
      body,
      receivedAt: Date.now(),
    };
    envelopes.push(envelope);
    for (const waiter of waiters) {
      if (waiter.predicate(envelope)) {
        waiters.delete(waiter);
        waiter.resolve(envelope);
      }
    }
    const id = typeof parsed.header.event_id === 'string' ? parsed.header.event_id : undefined;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(id ? { id } : {}));
  }

  async function control(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const json = (status: number, value: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (req.url === '/__capture/envelopes' && req.method === 'GET') {
      json(200, { requests, envelopes: envelopes.map(describe) });
    } else if (req.url === '/__capture/envelopes' && req.method === 'DELETE') {
      envelopes.length = 0;
      requests = 0;
      json(200, {});
    } else if (req.url === '/__capture/behaviour' && req.method === 'PUT') {
      behaviour = JSON.parse((await readBody(req)).toString('utf8')) as CaptureBehaviour;
      json(200, behaviour);
    } else {
      json(404, { detail: 'unknown control route' });
    }
  }

  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    port,
    dsn: ({ projectId = '1', publicKey = 'public', host = `127.0.0.1:${port}` } = {}) =>
      `http://${publicKey}@${host}/${projectId}`,
    envelopeUrl: (projectId = '1') => `${url}/api/${projectId}/envelope/`,
    envelopes,
    requestCount: () => requests,
    items: (type) => envelopes.flatMap((e) => e.items.filter((item) => item.type === type)),
    waitFor(predicate, timeoutMs = 10_000) {
      const found = envelopes.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = { predicate, resolve };
        waiters.add(waiter);
        setTimeout(() => {
          if (waiters.delete(waiter)) {
            reject(new Error(`no matching envelope within ${timeoutMs} ms (${envelopes.length} recorded)`));
          }
        }, timeoutMs).unref();
      });
    },
    setBehaviour(next) {
      behaviour = next;
      if (next.kind !== 'stall') {
        for (const res of stalled) res.socket?.destroy();
        stalled.clear();
      }
    },
    clear() {
      envelopes.length = 0;
      requests = 0;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Payloads and item headers above this size are summarized by the control API (length and SHA-256, no text). */
const SUMMARIZE_FROM = 64 * 1024;
const digests = new WeakMap<Buffer, string>();

/**
 * An envelope as the control API reports it: JSON payloads parsed, others as UTF-8 text, each with its byte `length`.
 * A payload over SUMMARIZE_FROM bytes is reported as its length and `sha256` only (a suite that sends hundreds of MiB
 * of attachments would otherwise get them back as JSON text on every poll), and an item header JSON.stringify cannot
 * write back (nested thousands deep) or over that size is replaced by its type and a note.
 */
export function describe(envelope: CapturedEnvelope) {
  return {
    projectId: envelope.projectId,
    publicKey: envelope.publicKey,
    requestHeaders: envelope.requestHeaders,
    header: envelope.header,
    items: envelope.items.map((item) => {
      const large = item.payload.length > SUMMARIZE_FROM;
      return {
        header: reportableHeader(item),
        type: item.type,
        length: item.payload.length,
        json: large ? undefined : item.json,
        text: large || item.json !== undefined ? undefined : item.payload.toString('utf8'),
        sha256: large ? digestOf(item.payload) : undefined,
      };
    }),
    receivedAt: envelope.receivedAt,
  };
}

function digestOf(payload: Buffer): string {
  let digest = digests.get(payload);
  if (digest === undefined) {
    digest = createHash('sha256').update(payload).digest('hex');
    digests.set(payload, digest);
  }
  return digest;
}

function reportableHeader(item: CapturedItem): Record<string, unknown> {
  try {
    const size = JSON.stringify(item.header).length;
    if (size <= SUMMARIZE_FROM) return item.header;
    return { type: item.type, summarized: `item header of ${size} characters` };
  } catch (error) {
    return { type: item.type, summarized: `item header not serializable (${(error as Error).message})` };
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error(`body over ${MAX_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function publicKeyOf(req: IncomingMessage, header: Record<string, unknown>): string | undefined {
  const url = new URL(req.url ?? '/', 'http://capture');
  const fromQuery = url.searchParams.get('sentry_key');
  if (fromQuery) return fromQuery;
  const auth = req.headers['x-sentry-auth'];
  const fromAuth = typeof auth === 'string' ? /sentry_key=([^,\s]+)/.exec(auth)?.[1] : undefined;
  if (fromAuth) return fromAuth;
  if (typeof header.dsn === 'string') return URL.parse(header.dsn)?.username || undefined;
  return undefined;
}
