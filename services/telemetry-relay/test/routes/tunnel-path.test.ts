// The tunnel path a deployment gets without TUNNEL_PATH: the one SDK 11's `tunnel: true` derives from each allowed
// DSN (decision 048), served for envelopes and CSP reports; no fixed path or name a filter list could take from every
// deployment.
import { type CaptureServer, envelope, eventItem, post } from '@app/test-kit';
import { getTunnelPath } from '@sentry/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { type RunningRelay, withRelay } from '../with-relay.ts';

const A = 'https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/42';
const B = 'https://fedcba9876543210fedcba9876543210@o2.ingest.sentry.io/7';
const base = { SPOOL_DIR: '/tmp/unused' };

describe('TUNNEL_PATH', () => {
  it.each([
    ['derived from the one allowed DSN', { ALLOWED_DSNS: A }, [getTunnelPath(A)]],
    ['derived from each allowed DSN', { ALLOWED_DSNS: `${A},${B}` }, [getTunnelPath(A), getTunnelPath(B)]],
    ['set: that path alone', { ALLOWED_DSNS: `${A},${B}`, TUNNEL_PATH: '/t9/' }, ['/t9']],
  ])('%s', (_, env, paths) => {
    expect(loadConfig({ ...base, ...env }).tunnelPaths).toEqual(paths);
  });

  it.each([
    ['no DSN to derive it from', { ALLOW_LOOPBACK_DSNS: '8969' }, /TUNNEL_PATH is required when ALLOWED_DSNS/],
    ['not a path', { ALLOWED_DSNS: A, TUNNEL_PATH: 'monitoring' }, /TUNNEL_PATH must be a path/],
  ])('is refused with %s', (_, env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });
});

describe('a relay without TUNNEL_PATH', () => {
  const under = withRelay({ TUNNEL_PATH: '' });
  let capture: CaptureServer;
  let relay: RunningRelay;
  let dsn: string;
  beforeAll(() => ({ capture, relay, dsn } = under));

  const report = JSON.stringify({ 'csp-report': { 'blocked-uri': 'inline', 'effective-directive': 'script-src' } });
  const postReport = (url: string) => post(url, report, { 'content-type': 'application/csp-report' });

  it('takes envelopes and CSP reports on the derived path, and nothing on /monitoring', async () => {
    const path = getTunnelPath(dsn) as string;
    expect(relay.tunnel).toBe(`${relay.url}${path}`);
    expect((await post(relay.tunnel, envelope({ dsn }, [eventItem()]))).status).toBe(200);
    expect((await postReport(`${relay.url}${path}/security?${new URLSearchParams({ dsn })}`)).status).toBe(200);
    expect((await post(`${relay.url}/monitoring`, envelope({ dsn }, [eventItem()]))).status).toBe(404);
  });

  // The web's report-uri since decision 048: no vendor's parameter names, and the DSN's host not in clear.
  it('reads a CSP report query in neutral names: k the DSN in base64url, e the environment, r the release', async () => {
    capture.clear();
    const k = Buffer.from(dsn).toString('base64url');
    const url = `${relay.url}${getTunnelPath(dsn)}/r?${new URLSearchParams({ k, e: 'staging', r: 'web@2' })}`;
    expect((await postReport(url)).status).toBe(200);
    const arrived = await capture.waitFor((e) => e.items.some((item) => item.type === 'raw_security'));
    expect(arrived.header).toEqual({ dsn });
    expect(arrived.items[0]?.header).toMatchObject({ sentry_environment: 'staging', sentry_release: 'web@2' });
    const other = Buffer.from('https://k@elsewhere.example/1').toString('base64url');
    expect((await postReport(`${relay.url}${getTunnelPath(dsn)}/r?k=${other}`)).status).toBe(403);
    expect((await postReport(`${relay.url}${getTunnelPath(dsn)}/r?k=bm90IGEgZHNu`)).status).toBeGreaterThanOrEqual(400);
  });
});
