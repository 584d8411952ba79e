// The screens of failures that carry no digest: a loader's own 500, a deliberate 503, and a failure outside the
// page handler (Fastify's error handler, plain text). In Chromium, with axe: e2e/web/error-screens.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_ERROR_TEXT } from '../../../src/framework/shared/page-data-protocol.ts';
import { buildApp, type WebApp } from '../../../src/server/app.ts';
import { loadConfig } from '../../../src/server/config.ts';
import { fakeAssets, pageData } from '../../with-web.ts';

let web: WebApp;
beforeAll(async () => {
  web = await buildApp(loadConfig({ LOG_LEVEL: 'silent', DIAGNOSTICS: '1' }), { assets: fakeAssets });
  // A bug outside the page handler: what Fastify's error handler is for.
  web.app.get('/__broken', async () => {
    throw new Error('handler bug (secret-internal-detail)');
  });
  await web.app.ready();
});
afterAll(() => web.app.close());

describe('failures without a digest', () => {
  it.each([
    ['a loader’s own 500', '/diagnostics/status-500', 500, SERVER_ERROR_TEXT, 'Application error'],
    ['a deliberate 503', '/diagnostics/unavailable', 503, 'Service unavailable', 'Service unavailable'],
  ])('%s: its status, its screen and title, no digest', async (_, url, status, heading, title) => {
    const res = await web.app.inject({ url });
    expect(res.statusCode).toBe(status);
    expect(res.body).toContain(`<h1>${heading}</h1>`);
    expect(res.body).toContain(`<title>${title}</title>`);
    expect(res.body).not.toContain('data-testid="digest"');
    expect(res.body).not.toContain(`${status} Internal Server Error`);
  });

  it('sends them in page data as route errors with no digest', async () => {
    const res = await web.app.inject({ url: '/diagnostics/unavailable', headers: pageData('diagnostics.$failure') });
    expect(res.statusCode).toBe(503);
    expect(res.json().errors['diagnostics.$failure']).toEqual({
      status: 503,
      statusText: 'Service Unavailable',
      data: null,
    });
  });
});

describe("Fastify's error handler", () => {
  it('answers a failure outside the page handler with the server exception text and a digest, as plain text', async () => {
    const res = await web.app.inject({ url: '/__broken' });
    expect(res.statusCode).toBe(500);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatch(new RegExp(`^${SERVER_ERROR_TEXT.replace(/[()]/g, '\\$&')}\\nDigest: [0-9a-f]{32}\\n$`));
    expect(res.body).not.toContain('secret-internal-detail');
  });
});
