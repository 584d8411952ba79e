// Compression of documents, page data, streams and built assets, and which encoding a request gets.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, createBrotliDecompress, createGunzip, gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { createElement, Suspense, use } from 'react';
import { createStaticHandler, type StaticHandlerContext } from 'react-router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompressDirectory } from '../../../build/precompress.ts';
import { buildApp } from '../../../src/server/app.ts';
import { loadConfig } from '../../../src/server/config.ts';
import { chooseEncoding, compressBuffer, compressResponses } from '../../../src/server/http/compression.ts';
import { renderDocument } from '../../../src/server/pages/render-document.tsx';
import { fakeAssets, pageData } from '../../with-web.ts';

const decode: Record<string, (body: Buffer) => Buffer> = { br: brotliDecompressSync, gzip: gunzipSync };

describe('choosing an encoding', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0.5', 'br'],
    ['identity', undefined],
    ['*', 'gzip'],
    ['deflate', undefined],
  ])('Accept-Encoding %j → %j', (header, expected) => {
    expect(chooseEncoding(header)).toBe(expected);
  });
});

// A built client in a temporary directory, compressed by the same step the build runs.
let clientDir: string;
const entry = `${'export const line = "a line of code that compresses well";\n'.repeat(200)}`;
const tiny = 'export {};\n';
async function appWith(env: Record<string, string> = {}): Promise<FastifyInstance> {
  const config = loadConfig({ LOG_LEVEL: 'silent', ...env });
  const { app } = await buildApp(config, { assets: fakeAssets, clientDir });
  await app.ready();
  return app;
}
let on: FastifyInstance;
let off: FastifyInstance;
beforeAll(async () => {
  clientDir = mkdtempSync(join(tmpdir(), 'web-client-'));
  mkdirSync(join(clientDir, 'assets'));
  writeFileSync(join(clientDir, 'assets/entry-abc123.js'), entry);
  writeFileSync(join(clientDir, 'assets/tiny-abc123.js'), tiny);
  expect(precompressDirectory(join(clientDir, 'assets'))).toEqual(['entry-abc123.js']);
  [on, off] = await Promise.all([appWith(), appWith({ COMPRESSION: 'off' })]);
});
afterAll(async () => {
  await Promise.all([on?.close(), off?.close()]);
  rmSync(clientDir, { recursive: true, force: true });
});

describe('built assets', () => {
  it('writes brotli and gzip copies beside a hashed file, and none for a tiny one', () => {
    const raw = readFileSync(join(clientDir, 'assets/entry-abc123.js'));
    const br = readFileSync(join(clientDir, 'assets/entry-abc123.js.br'));
    expect(brotliDecompressSync(br).equals(raw)).toBe(true);
    expect(gunzipSync(readFileSync(join(clientDir, 'assets/entry-abc123.js.gz'))).equals(raw)).toBe(true);
    expect(br.length).toBeLessThan(raw.length / 10);
    expect(() => readFileSync(join(clientDir, 'assets/tiny-abc123.js.br'))).toThrow();
  });

  it.each(['br', 'gzip'])('sends the precompressed %s file to a browser that accepts it', async (encoding) => {
    const res = await on.inject({ url: '/assets/entry-abc123.js', headers: { 'accept-encoding': encoding } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe(encoding);
    expect(res.headers['content-type']).toMatch(/^(?:text|application)\/javascript/);
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const onDisk = readFileSync(join(clientDir, `assets/entry-abc123.js.${encoding === 'br' ? 'br' : 'gz'}`));
    expect(res.rawPayload.equals(onDisk)).toBe(true);
    expect(decode[encoding]?.(res.rawPayload).toString()).toBe(entry);
  });

  it('sends the raw file without Accept-Encoding, or when the file has no compressed copy', async () => {
    const plain = await on.inject({ url: '/assets/entry-abc123.js' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(plain.body).toBe(entry);
    const small = await on.inject({ url: '/assets/tiny-abc123.js', headers: { 'accept-encoding': 'br' } });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.body).toBe(tiny);
  });

  it('sends the raw file with COMPRESSION=off', async () => {
    const res = await off.inject({ url: '/assets/entry-abc123.js', headers: { 'accept-encoding': 'br, gzip' } });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body).toBe(entry);
  });
});

describe('documents and page data', () => {
  it.each(['br', 'gzip'])('compresses a document with %s', async (encoding) => {
    const res = await on.inject({ url: '/catalog', headers: { 'accept-encoding': encoding } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe(encoding);
    // The compressed length, never the uncompressed one (a document complete at its shell is sent whole).
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    expect(res.headers.vary).toBe('X-Page-Data, X-Page-Data-Routes, Accept-Encoding');
    const html = decode[encoding]?.(res.rawPayload).toString() ?? '';
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('<h1>Catalog</h1>');
    expect(html).toMatch(/<\/html>$/);
  });

  it.each(['br', 'gzip'] as const)(
    'compresses a document rendered in one flush in one piece (%s), as for a body that is not streamed',
    async (encoding) => {
      const res = await on.inject({ url: '/catalog', headers: { 'accept-encoding': encoding } });
      const html = decode[encoding]?.(res.rawPayload) ?? Buffer.alloc(0);
      // A zlib stream flushed per chunk writes other bytes (and more of them) than one call over the whole body.
      expect(res.rawPayload.equals(compressBuffer(html, encoding))).toBe(true);
    },
  );

  it('compresses page data', async () => {
    const res = await on.inject({
      url: '/catalog',
      headers: { ...pageData('root,catalog'), 'accept-encoding': 'gzip' },
    });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(res.rawPayload).toString())).toMatchObject({ kind: 'data', status: 200 });
  });

  it('sends a small body (a page-data redirect) as it is, still varying on Accept-Encoding', async () => {
    const res = await on.inject({
      url: '/catalog',
      headers: { ...pageData('catalog.$slug'), 'accept-encoding': 'br' },
    });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toBe('X-Page-Data, X-Page-Data-Routes, Accept-Encoding');
    expect(res.json()).toMatchObject({ kind: 'redirect' });
  });

  it('sends documents and page data raw with COMPRESSION=off or without Accept-Encoding', async () => {
    for (const [app, headers] of [
      [off, { 'accept-encoding': 'br, gzip' }],
      [on, {}],
    ] as const) {
      const doc = await app.inject({ url: '/catalog', headers });
      expect(doc.headers['content-encoding']).toBeUndefined();
      expect(doc.body).toContain('<h1>Catalog</h1>');
      const data = await app.inject({ url: '/catalog', headers: { ...headers, ...pageData('catalog') } });
      expect(data.headers['content-encoding']).toBeUndefined();
      expect(data.json().kind).toBe('data');
    }
    const doc = await off.inject({ url: '/catalog', headers: { 'accept-encoding': 'br' } });
    expect(doc.headers.vary).toBe('X-Page-Data, X-Page-Data-Routes');
  });
});

describe('a streamed document, compressed', () => {
  // A new pending promise per request: the page's late part renders when the test releases it.
  let release: () => void = () => {};
  let later: Promise<string> = Promise.resolve('');
  const Late = () => createElement('p', null, use(later));
  const Page = () =>
    createElement(
      'main',
      null,
      createElement('h1', null, 'Shell'),
      createElement(Suspense, { fallback: 'Loading' }, createElement(Late)),
    );
  let server: FastifyInstance;
  beforeAll(async () => {
    const handler = createStaticHandler([{ id: 'root', path: '/', Component: Page }]);
    server = Fastify();
    compressResponses(server);
    server.get('/', async (_req, reply) => {
      const context = (await handler.query(new Request('http://shop.test/'))) as StaticHandlerContext;
      const parts = {
        context,
        dataRoutes: handler.dataRoutes,
        nonce: 'n',
        styleNonce: 's',
        assets: fakeAssets,
        viewModules: [],
        clientConfig: { sentry: { tracesSampleRate: 0, environment: 'test' }, diagnostics: false } as never,
        traceMeta: '',
        appName: 'Test',
        origin: 'http://shop.test',
      };
      const rendered = await renderDocument(parts, () => {});
      return reply.type('text/html; charset=utf-8').send(rendered.body);
    });
    await server.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => server?.close());

  it.each([
    ['br', createBrotliDecompress],
    ['gzip', createGunzip],
  ] as const)('sends the shell (%s) before the rest of the page is rendered', async (encoding, decompressor) => {
    const { port } = server.server.address() as AddressInfo;
    later = new Promise<string>((resolve) => {
      release = () => resolve('the late part of the page');
    });
    const { text, done } = await new Promise<{ text: () => string; done: Promise<void> }>((resolve, reject) => {
      const req = httpRequest({ port, host: '127.0.0.1', path: '/', headers: { 'accept-encoding': encoding } });
      req.on('response', (res) => {
        expect(res.headers['content-encoding']).toBe(encoding);
        let seen = '';
        const unzip = res.pipe(decompressor());
        unzip.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
        });
        resolve({ text: () => seen, done: new Promise((ok) => unzip.on('end', ok)) });
      });
      req.on('error', reject);
      req.end();
    });
    await expect.poll(() => text(), { timeout: 5_000 }).toContain('<h1>Shell</h1>');
    expect(text()).toContain('Loading');
    expect(text()).not.toContain('the late part of the page');
    release();
    await done;
    expect(text()).toContain('the late part of the page');
    expect(text()).toMatch(/<\/html>$/);
  });
});
