// Every relay answer says X-Content-Type-Options: nosniff (issue 28.9): the tunnel's (served ahead of Fastify),
// the CSP report route's, the probes' and a 404.
import { removeTempDirs } from '@app/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningRelay, startRelay } from '../with-relay.ts';

let relay: RunningRelay;
beforeAll(async () => {
  relay = await startRelay({ ALLOWED_DSNS: 'http://abc@127.0.0.1:9/42', UPSTREAM_URL: 'http://127.0.0.1:9/' });
});
afterAll(() => Promise.resolve(relay?.close()).then(removeTempDirs));

describe('X-Content-Type-Options', () => {
  it.each([
    ['a refused envelope', 'POST', '/monitoring', 'not an envelope'],
    ['GET on the tunnel path', 'GET', '/monitoring', undefined],
    ['a refused CSP report', 'POST', '/monitoring/security', '{}'],
    ['liveness', 'GET', '/healthz', undefined],
    ['readiness', 'GET', '/readyz', undefined],
    ['an unknown path', 'GET', '/nope', undefined],
  ])('%s: nosniff', async (_, method, path, body) => {
    const res = await fetch(`${relay.url}${path}`, { method, ...(body ? { body } : {}) });
    await res.arrayBuffer();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
