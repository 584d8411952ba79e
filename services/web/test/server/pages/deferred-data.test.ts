// Deferred loader data over both transports: streamed into the document (scripts after the shell) and into page
// data (JSON lines after the first). Chunk timing in a real process and the browser's side: e2e/web/streaming.test.ts.
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareDeferred } from '../../../src/server/pages/deferred-parts.ts';
import { pageData, withWeb } from '../../with-web.ts';

const web = withWeb({ CATALOG_RELATED_DELAY_MS: '30' });
let app: FastifyInstance;
beforeAll(() => ({ app } = web));

const lines = (body: string) =>
  body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));

describe('a document with a deferred part', () => {
  it('sends the shell with a fallback, then the part and its data in a script, in one response', async () => {
    const res = await app.inject({ url: '/catalog/amber-lamp' });
    expect(res.statusCode).toBe(200);
    const body = res.body;
    const h1 = body.indexOf('<h1>Amber Lamp</h1>');
    const fallback = body.indexOf('Loading related items…');
    const part = body.indexOf('data-testid="related-items"');
    const data = body.indexOf('.push({"routeId":"catalog.$slug","key":"related","value":[');
    expect(h1).toBeGreaterThan(0);
    expect(fallback).toBeGreaterThan(h1);
    expect(part).toBeGreaterThan(fallback);
    expect(data).toBeGreaterThan(fallback);
    expect(body).toContain('<script type="application/json" id="deferred-keys">{"catalog.$slug":["related"]}</script>');
    // The same three items in the HTML and in the data, and all before the document's end.
    for (const name of ['Brisk Lamp', 'Cedar Lamp', 'Dune Lamp']) expect(body.slice(part)).toContain(name);
    expect(body.endsWith('</div></body></html>')).toBe(true);
  });

  it('shows a failed part as an error with its digest, and the rest of the page, never the message', async () => {
    const res = await app.inject({ url: '/diagnostics/deferred-error' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<h1>Diagnostics: <!-- -->deferred-error</h1>');
    expect(res.body).toMatch(
      /The deferred part failed\.(?:<!-- -->| )+Digest: <code data-testid="deferred-digest">[0-9a-f]{32}</,
    );
    expect(res.body).toMatch(
      /"key":"deferred","error":\{"status":500,"statusText":"Internal Server Error","data":\{"digest":"[0-9a-f]{32}"\}\}/,
    );
    expect(res.body).not.toContain('secret-internal-detail');
  });
});

describe('page data with a deferred part', () => {
  it('streams JSON lines: the page data with the part left out, then the part', async () => {
    const res = await app.inject({ url: '/catalog/amber-lamp', headers: pageData('catalog.$slug') });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers['x-page-data']).toBe('1');
    const [first, part, ...rest] = lines(res.body);
    expect(first).toMatchObject({ kind: 'data', status: 200, deferred: { 'catalog.$slug': ['related'] } });
    expect(first.loaderData['catalog.$slug'].item.name).toBe('Amber Lamp');
    expect(first.loaderData['catalog.$slug'].related).toBeNull();
    expect(part).toMatchObject({ routeId: 'catalog.$slug', key: 'related' });
    expect(part.value.map((i: { name: string }) => i.name)).toEqual(['Brisk Lamp', 'Cedar Lamp', 'Dune Lamp']);
    expect(rest).toEqual([]);
  });

  it('sends a failed part as a route error with only a digest', async () => {
    const res = await app.inject({ url: '/diagnostics/deferred-error', headers: pageData('diagnostics.$failure') });
    const [first, part] = lines(res.body);
    expect(first.status).toBe(200);
    expect(part).toEqual({
      routeId: 'diagnostics.$failure',
      key: 'deferred',
      error: {
        status: 500,
        statusText: 'Internal Server Error',
        data: { digest: expect.stringMatching(/^[0-9a-f]{32}$/) },
      },
    });
    expect(res.body).not.toContain('secret-internal-detail');
  });

  it('answers page data without deferred parts as one JSON document', async () => {
    const res = await app.inject({ url: '/catalog', headers: pageData('catalog') });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json().deferred).toBeUndefined();
  });
});

describe('prepareDeferred', () => {
  it('fails a part that does not settle in time, reported once, and leaves other values alone', async () => {
    const reported: string[] = [];
    const loaderData: Record<string, unknown> = { r: { now: 1, never: new Promise(() => {}) } };
    const [part] = prepareDeferred(
      loaderData,
      (error, where) => {
        reported.push(`${where}: ${String(error)}`);
        return 'd1';
      },
      new AbortController().signal,
      20,
    );
    expect(await part?.settled).toEqual({
      routeId: 'r',
      key: 'never',
      error: { status: 500, statusText: 'Internal Server Error', data: { digest: 'd1' } },
    });
    expect(reported).toEqual(['r.never: Error: deferred data did not settle within 20 ms']);
    expect((loaderData.r as { now: number }).now).toBe(1);
  });

  it('reports nothing for a request the client abandoned', async () => {
    const abort = new AbortController();
    const reported: unknown[] = [];
    const loaderData = { r: { part: Promise.reject(new Error('aborted')) } };
    abort.abort();
    const [part] = prepareDeferred(loaderData, (e) => String(reported.push(e)), abort.signal);
    expect(await part?.settled).toMatchObject({ error: { status: 499 } });
    expect(reported).toEqual([]);
  });
});
