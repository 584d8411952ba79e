// Which Cache-Control each document gets, so the back/forward cache can keep pages without sharing them.
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { cookieNames, documentCacheControl } from '../../../src/server/pages/document-cache.ts';
import { pageData, withWeb } from '../../with-web.ts';

const web = withWeb();
let app: FastifyInstance;
beforeAll(() => ({ app } = web));

// prefs= is a valid cookie value (base64 JSON); its content does not matter here, only its presence.
const PREFS = `prefs=${encodeURIComponent(Buffer.from(JSON.stringify({ theme: 'dark', displayName: 'Ada', pageSize: 10 })).toString('base64'))}`;

describe('Cache-Control of documents (the back/forward cache keeps private, no-cache; never no-store)', () => {
  it.each([
    ['/', undefined, 'private, no-cache'],
    ['/catalog', undefined, 'private, no-cache'],
    ['/catalog/amber-lamp', 'theme=x; other=1', 'private, no-cache'],
    ['/preferences', undefined, 'private, no-cache'],
    ['/no/such/page', undefined, 'private, no-cache'],
    // The layout and the preferences page render from the prefs cookie.
    ['/', PREFS, 'no-store'],
    ['/catalog', `a=1; ${PREFS}`, 'no-store'],
    ['/preferences', PREFS, 'no-store'],
  ])('GET %s with Cookie %j → %s', async (url, cookie, expected) => {
    const res = await app.inject({ url, headers: cookie ? { cookie } : {} });
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe(expected);
  });

  it('keeps page data and redirects no-store', async () => {
    const data = await app.inject({ url: '/catalog', headers: pageData('root,catalog') });
    expect(data.headers['cache-control']).toBe('no-store');
    const redirect = await app.inject({ url: '/catalog/old-amber-lamp' });
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers['cache-control']).toBe('no-store');
  });

  it('marks a document that sets a cookie no-store', () => {
    expect(documentCacheControl([{ route: { handle: {} } }], undefined, true)).toBe('no-store');
  });

  it.each([
    [undefined, []],
    ['', []],
    ['a=1', ['a']],
    [' a=1 ; b = 2;c', ['a', 'b', 'c']],
    ['prefsx=1', ['prefsx']],
  ])('cookie names of %j', (header, names) => {
    expect([...cookieNames(header)]).toEqual(names);
  });
});
