// The document head's metadata from the route table, and canonical URLs that never name another host.
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalUrl, pageMetaOf } from '../../src/framework/shared/page-meta.ts';
import { canonicalOrigin } from '../../src/server/http/canonical-origin.ts';
import { appForTest, withWeb } from '../with-web.ts';

const web = withWeb({ PUBLIC_ORIGIN: 'https://shop.test' });
let app: FastifyInstance;
beforeAll(() => ({ app } = web));

const headIn = async (server: FastifyInstance, url: string, headers: Record<string, string> = {}) => {
  const res = await server.inject({ url, headers: { host: 'shop.test', ...headers } });
  return res.body.slice(0, res.body.indexOf('</head>'));
};
const headOf = (url: string) => headIn(app, url);
const content = (head: string, attribute: string, name: string) =>
  new RegExp(`<meta ${attribute}="${name}" content="([^"]*)">`).exec(head)?.[1];

describe('head metadata of a document, from the route table', () => {
  it.each([
    ['/', 'Home · Example Store', 'Browse the Example Store catalog and set your display preferences.'],
    ['/catalog?page=2', 'Catalog, page 2 · Example Store', 'All 120 items of the Example Store catalog, page 2 of 6.'],
    ['/catalog/amber-lamp', 'Amber Lamp · Example Store', undefined],
    [
      '/preferences',
      'Preferences · Example Store',
      'Choose your display name, theme and catalog page size at the Example Store.',
    ],
  ])('%s: title, description, canonical URL, lang and Open Graph', async (url, title, description) => {
    const head = await headOf(url);
    const path = url.split('?')[0];
    expect(head).toMatch(/^<!DOCTYPE html><html lang="en">/);
    expect(head).toContain(`<title>${title}</title>`);
    expect(head).toContain(`<link rel="canonical" href="https://shop.test${path}">`);
    expect(content(head, 'property', 'og:title')).toBe(title);
    expect(content(head, 'property', 'og:url')).toBe(`https://shop.test${path}`);
    expect(content(head, 'property', 'og:type')).toBe('website');
    expect(content(head, 'property', 'og:site_name')).toBe('Example Store');
    const found = content(head, 'name', 'description');
    expect(found).toMatch(/\S/);
    if (description) expect(found).toBe(description);
    expect(content(head, 'property', 'og:description')).toBe(found);
  });

  it('escapes a description made from the request', async () => {
    const head = await headOf('/catalog?q=%22%3E%3Cscript%3E');
    expect(content(head, 'name', 'description')).toBe(
      '0 catalog items matching “&#34;&#62;&#60;script&#62;” at the Example Store.',
    );
    expect(head).not.toContain('"><script>');
  });

  it('gives an error page its title and no description', async () => {
    const head = await headOf('/no/such/page');
    expect(head).toContain('<title>Page not found</title>');
    expect(head).not.toContain('name="description"');
    expect(head).toContain('<link rel="canonical" href="https://shop.test/no/such/page">');
  });
});

describe('the canonical URL, whatever Host the request names', () => {
  const forged = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };

  it('is PUBLIC_ORIGIN when it is set', async () => {
    const { app: behindEdge } = await appForTest({ PUBLIC_ORIGIN: 'https://shop.test', TRUSTED_PROXY_HOPS: '1' });
    const head = await headIn(behindEdge, '/catalog', forged);
    expect(head).toContain('<link rel="canonical" href="https://shop.test/catalog">');
    expect(content(head, 'property', 'og:url')).toBe('https://shop.test/catalog');
    expect(head).not.toContain('evil.example');
  });

  it('is left out when no origin is configured and the Host is neither configured nor loopback', async () => {
    const { app: unset } = await appForTest({ TRUSTED_PROXY_HOPS: '1' });
    const head = await headIn(unset, '/catalog', forged);
    expect(head).not.toContain('evil.example');
    expect(head).not.toContain('rel="canonical"');
    expect(head).not.toContain('og:url');
    expect(content(head, 'property', 'og:title')).toBe('Catalog, page 1 · Example Store');
  });

  it("is the request's own origin when it is one of ALLOWED_ORIGINS or a loopback host", async () => {
    const { app: unset } = await appForTest({ ALLOWED_ORIGINS: 'http://shop.test' });
    expect(await headIn(unset, '/catalog')).toContain('<link rel="canonical" href="http://shop.test/catalog">');
    expect(await headIn(unset, '/catalog', { host: 'localhost:3000' })).toContain(
      '<link rel="canonical" href="http://localhost:3000/catalog">',
    );
  });

  it.each([
    ['http://localhost:3000', 'http://localhost:3000'],
    ['http://app.localhost', 'http://app.localhost'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http://[::1]:3000', 'http://[::1]:3000'],
    ['http://localhost.evil.example', undefined],
    ['http://127.evil.example', undefined],
    ['http://10.0.0.1', undefined],
    ['not a url', undefined],
  ])('canonicalOrigin(%s) with nothing configured: %s', (origin, expected) => {
    expect(canonicalOrigin(origin, { publicOrigin: undefined, allowedOrigins: [] })).toBe(expected);
  });
});

describe('a path that names another host never makes an off-site canonical URL (issue 28.5)', () => {
  const sneaky = [
    '//evil.example/x',
    '/\\evil.example/x',
    '/\\\\evil.example/x',
    '///evil.example/x',
    '/\\/evil.example',
  ];
  /** The request line as written, over a real socket: fetch and inject may normalize what a raw client sends. */
  async function rawHead(port: number, path: string): Promise<string> {
    const socket = connect(port, '127.0.0.1');
    socket.end(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    const chunks: Buffer[] = [];
    for await (const chunk of socket) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    return text.slice(0, text.indexOf('</head>'));
  }
  const canonicalOf = (head: string) => /<link rel="canonical" href="([^"]*)">/.exec(head)?.[1];

  it.each(sneaky)('%s, injected: canonical and og:url on PUBLIC_ORIGIN', async (path) => {
    const head = await headOf(path);
    const canonical = canonicalOf(head);
    expect(canonical && new URL(canonical).origin).toBe('https://shop.test');
    expect(content(head, 'property', 'og:url')).toBe(canonical);
    expect(head).not.toMatch(/href="[a-z]+:\/\/evil|content="[a-z]+:\/\/evil/);
  });

  it.each(sneaky)('%s over a socket, with and without PUBLIC_ORIGIN', async (path) => {
    for (const env of [{ PUBLIC_ORIGIN: 'https://shop.test' }, {}]) {
      const web = await appForTest(env);
      await web.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = web.app.server.address() as AddressInfo;
      const head = await rawHead(port, path);
      const canonical = canonicalOf(head);
      const origin = 'PUBLIC_ORIGIN' in env ? 'https://shop.test' : `http://127.0.0.1:${port}`;
      expect(canonical && new URL(canonical).origin).toBe(origin);
      expect(content(head, 'property', 'og:url')).toBe(canonical);
      expect(head).not.toContain('://evil.example');
    }
  });

  it.each([
    ['//evil.example/x', 'https://shop.example/evil.example/x'],
    ['/\\evil.example/x', 'https://shop.example/evil.example/x'],
    ['/a//b', 'https://shop.example/a//b'],
    ['/', 'https://shop.example/'],
  ])('canonicalUrl(origin, %s) = %s', (path, expected) => {
    expect(canonicalUrl('https://shop.example', path)).toBe(expected);
  });
});

describe('pageMetaOf', () => {
  const at = (handle: object, loaderData?: unknown) => ({ handle, loaderData });
  const options = { appName: 'App', origin: 'https://shop.example', pathname: '/a/b' };
  it.each([
    ['no handles', [at({})], { title: 'App', description: undefined, lang: 'en' }],
    [
      'the deepest route wins',
      [at({ title: () => 'Outer', description: () => 'outer', lang: 'fr' }), at({ title: (d: string) => d }, 'Inner')],
      { title: 'Inner', description: 'outer', lang: 'fr' },
    ],
    [
      'a route without loader data passes to the next one up',
      [at({ description: () => 'outer' }, {}), at({ description: (d: string) => d })],
      { title: 'App', description: 'outer', lang: 'en' },
    ],
    [
      'a deeper lang wins',
      [at({ lang: 'fr' }), at({ lang: 'de' })],
      { title: 'App', description: undefined, lang: 'de' },
    ],
  ])('%s', (_name, matches, expected) => {
    expect(pageMetaOf(matches, options)).toEqual({ ...expected, canonical: 'https://shop.example/a/b' });
  });

  it('has no canonical URL without an origin', () => {
    expect(pageMetaOf([at({})], { ...options, origin: undefined }).canonical).toBeUndefined();
  });
});
