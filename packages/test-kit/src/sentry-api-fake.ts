// A local stand-in for the part of Sentry's web API source map uploads use (`sentry sourcemap upload`, the bundler
// plugins): organization, chunk-upload options, chunk POST (multipart, named by SHA-1, plain or gzip) and the bundle's
// assemble, which checks and unzips it for tests to look inside. Every request is recorded; anything else is a 404.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { readZip } from './zip-reader.ts';

export interface BundleFile {
  /** `~/assets/entry-abc.js` etc., as Sentry lists it. */
  url: string;
  type: string;
  headers: Record<string, string>;
  content: Buffer;
}

export interface AssembledBundle {
  org: string;
  projects: string[];
  release: string | undefined;
  dist: string | undefined;
  files: BundleFile[];
  /** The bundle's source maps by the Debug ID in their `debug-id` header. */
  sourceMapByDebugId(debugId: string): Record<string, unknown> | undefined;
}

export interface SentryApiFake {
  /** http://127.0.0.1:<port> (what SENTRY_URL is set to). */
  url: string;
  token: string;
  requests: Array<{ method: string; path: string; status: number }>;
  bundles: AssembledBundle[];
  close(): Promise<void>;
}

const ORGANIZATION = /^\/api\/0\/organizations\/([^/]+)\/$/;
const CHUNK_UPLOAD = /^\/api\/0\/organizations\/([^/]+)\/chunk-upload\/$/;
const ASSEMBLE = /^\/api\/0\/organizations\/([^/]+)\/artifactbundle\/assemble\/$/;
const sha1 = (data: Buffer) => createHash('sha1').update(data).digest('hex');

async function body(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

function send(res: ServerResponse, status: number, json: unknown): number {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
  return status;
}

function unpackBundle(org: string, request: Record<string, unknown>, zip: Buffer): AssembledBundle {
  const entries = readZip(zip);
  const manifest = JSON.parse(entries.get('manifest.json')?.toString('utf8') ?? '{}') as {
    files?: Record<string, { url: string; type: string; headers?: Record<string, string> }>;
  };
  const files = Object.entries(manifest.files ?? {}).map(([path, file]) => ({
    url: file.url,
    type: file.type,
    headers: Object.fromEntries(Object.entries(file.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    content: entries.get(path) ?? Buffer.alloc(0),
  }));
  return {
    org,
    projects: (request.projects as string[] | undefined) ?? [],
    release: request.version as string | undefined,
    dist: request.dist as string | undefined,
    files,
    sourceMapByDebugId(debugId) {
      const file = files.find((f) => f.type === 'source_map' && f.headers['debug-id'] === debugId);
      return file ? (JSON.parse(file.content.toString('utf8')) as Record<string, unknown>) : undefined;
    },
  };
}

export async function startSentryApiFake(options: { token?: string } = {}): Promise<SentryApiFake> {
  const token = options.token ?? 'sntrys_fake_token';
  const chunks = new Map<string, Buffer>();
  const assembled = new Set<string>();
  const fake: Omit<SentryApiFake, 'url' | 'close'> = { token, requests: [], bundles: [] };

  async function handle(req: IncomingMessage, res: ServerResponse, base: string): Promise<number> {
    const path = new URL(req.url ?? '/', base).pathname;
    if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { detail: 'Invalid token' });
    // The CLI looks up the organization's region first (sentry.io has several); here it is this server.
    const organization = ORGANIZATION.exec(path);
    if (organization && req.method === 'GET') {
      return send(res, 200, { slug: organization[1], links: { organizationUrl: base, regionUrl: base } });
    }
    const upload = CHUNK_UPLOAD.exec(path);
    if (upload && req.method === 'GET') {
      return send(res, 200, {
        url: `${base}${path}`,
        chunkSize: 8 * 1024 * 1024,
        chunksPerRequest: 64,
        maxFileSize: 2 * 1024 * 1024 * 1024,
        maxRequestSize: 32 * 1024 * 1024,
        concurrency: 2,
        hashAlgorithm: 'sha1',
        compression: ['gzip'],
        accept: ['debug_files', 'release_files', 'pdbs', 'sources', 'bcsymbolmaps', 'il2cpp', 'artifact_bundles'],
      });
    }
    if (upload && req.method === 'POST') {
      const form = await new Request(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? '' },
        body: new Uint8Array(await body(req)),
      }).formData();
      for (const [field, value] of form.entries()) {
        if (typeof value === 'string') return send(res, 400, { detail: `field ${field} is not a file` });
        const raw = Buffer.from(await value.arrayBuffer());
        const data = field === 'file_gzip' ? gunzipSync(raw) : raw;
        if (sha1(data) !== value.name) return send(res, 400, { detail: `chunk ${value.name}: checksum mismatch` });
        chunks.set(value.name, data);
      }
      return send(res, 200, {});
    }
    const assemble = ASSEMBLE.exec(path);
    if (assemble?.[1] && req.method === 'POST') {
      const request = JSON.parse((await body(req)).toString('utf8')) as { checksum: string; chunks: string[] };
      if (assembled.has(request.checksum)) return send(res, 200, { state: 'ok', missingChunks: [] });
      const missingChunks = request.chunks.filter((chunk) => !chunks.has(chunk));
      if (missingChunks.length > 0) return send(res, 200, { state: 'not_found', missingChunks });
      const zip = Buffer.concat(request.chunks.map((chunk) => chunks.get(chunk) as Buffer));
      if (sha1(zip) !== request.checksum) return send(res, 400, { detail: 'bundle checksum mismatch' });
      fake.bundles.push(unpackBundle(assemble[1], request, zip));
      assembled.add(request.checksum);
      return send(res, 200, { state: 'created', missingChunks: [] });
    }
    return send(res, 404, { detail: `not part of this fake: ${req.method} ${path}` });
  }

  const server = createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    handle(req, res, base).then(
      (status) =>
        fake.requests.push({ method: req.method ?? '', path: new URL(req.url ?? '/', base).pathname, status }),
      (error: unknown) => send(res, 500, { detail: String(error) }),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return Object.assign(fake, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
