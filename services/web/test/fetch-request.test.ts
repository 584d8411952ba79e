// The page's Fetch Request (pages/fetch-request.ts): the page's own AbortSignal, headers as the client sent them
// (read lazily for a GET), a form body undici can parse, and React Router's handler stopping when the client leaves.
import { setTimeout as sleep } from 'node:timers/promises';
import { createStaticHandler, RouterContextProvider } from 'react-router';
import { describe, expect, it } from 'vitest';
import { fetchRequest, toHeaders } from '../src/server/pages/fetch-request.ts';

const url = new URL('http://shop.example/catalog?limit=50');
const raw = { host: 'shop.example', cookie: 'theme=dark', 'x-many': ['a', 'b'], 'x-none': undefined };

describe('fetchRequest', () => {
  it.each(['GET', 'HEAD'])('a %s carries the page signal and the client headers', (method) => {
    const abort = new AbortController();
    const request = fetchRequest(url, { method, headers: raw, signal: abort.signal });
    expect(request).toBeInstanceOf(Request);
    expect(request.method).toBe(method);
    expect(request.url).toBe(url.href);
    expect(request.signal).toBe(abort.signal);
    expect([...request.headers]).toEqual([
      ['cookie', 'theme=dark'],
      ['host', 'shop.example'],
      ['x-many', 'a, b'],
    ]);
    expect(request.headers).toBe(request.headers);
    abort.abort();
    expect(request.signal.aborted).toBe(true);
  });

  it('a POST keeps its headers for undici, which parses the form by its Content-Type', async () => {
    const body = new TextEncoder().encode('theme=light&x=1');
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    const request = fetchRequest(url, { method: 'POST', headers, signal: new AbortController().signal, body });
    expect(request.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(await request.formData())).toEqual({ theme: 'light', x: '1' });
  });

  it.each([
    ['GET', undefined],
    ['POST', new TextEncoder().encode('a=1')],
  ])('a clone of a %s keeps the page signal, the headers and the body', async (method, body) => {
    const abort = new AbortController();
    const headers = { cookie: 'theme=dark', 'content-type': 'application/x-www-form-urlencoded' };
    const request = fetchRequest(url, { method, headers, signal: abort.signal, ...(body ? { body } : {}) });
    const copy = request.clone();
    expect([copy.method, copy.url, copy.headers.get('cookie')]).toEqual([method, url.href, 'theme=dark']);
    if (body) expect([await copy.text(), await request.text()]).toEqual(['a=1', 'a=1']);
    abort.abort();
    expect(copy.signal.aborted).toBe(true);
  });

  it('toHeaders keeps repeated headers in order and leaves out absent ones', () => {
    expect([...toHeaders({ a: ['1', '2'], b: '3', c: undefined })]).toEqual([
      ['a', '1, 2'],
      ['b', '3'],
    ]);
  });

  it('a loader sees the request and stops React Router when the client goes away', async () => {
    const seen: { cookie: string | null; aborted?: boolean }[] = [];
    const handler = createStaticHandler([
      {
        id: 'slow',
        path: '/catalog',
        loader: async ({ request }) => {
          const entry: (typeof seen)[number] = { cookie: request.headers.get('cookie') };
          seen.push(entry);
          await sleep(1_000, undefined, { signal: request.signal }).catch(() => {
            entry.aborted = true;
          });
          return 'done';
        },
      },
    ]);
    const abort = new AbortController();
    const request = fetchRequest(url, { method: 'GET', headers: raw, signal: abort.signal });
    const query = handler.query(request, { requestContext: new RouterContextProvider() });
    setTimeout(() => abort.abort(new Error('client went away')), 20);
    await expect(query).rejects.toThrow('client went away');
    expect(seen).toEqual([{ cookie: 'theme=dark', aborted: true }]);
  });
});
