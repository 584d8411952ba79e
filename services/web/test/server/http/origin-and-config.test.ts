// The origin check for unsafe requests, and the web service's configuration refusing wrong values.
import { ConfigError } from '@app/service-kit';
import { getTunnelPath } from '@sentry/core';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/server/config.ts';
import { checkOrigin } from '../../../src/server/http/origin-check.ts';

describe('origin check', () => {
  const allowed = ['https://www.shop.example'];
  it.each([
    [{ origin: 'https://shop.test' }, true],
    [{ origin: 'https://shop.test:443' }, true],
    // The same host over the other scheme is another site (a network attacker's, without HSTS preload).
    [{ origin: 'http://shop.test' }, false],
    [{ origin: 'https://shop.test:8443' }, false],
    [{ origin: 'https://www.shop.example' }, true],
    [{ origin: 'https://evil.example' }, false],
    [{ origin: 'http://shop.test.evil.example' }, false],
    [{ origin: 'null' }, false],
    [{ 'sec-fetch-site': 'same-origin' }, true],
    [{ 'sec-fetch-site': 'none' }, true],
    [{ 'sec-fetch-site': 'same-site' }, false],
    [{ 'sec-fetch-site': 'cross-site' }, false],
    [{}, true],
  ])('%o → accepted: %s', (headers, ok) => {
    expect(checkOrigin(headers, 'https://shop.test', allowed).ok).toBe(ok);
  });
});

describe('config', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      server: { port: 3000 },
      diagnostics: false,
      metricsPort: undefined,
      sentry: {
        dsn: undefined,
        environment: 'production',
        tracesSampleRate: 0.1,
        tunnelPath: undefined,
        tunnelTarget: undefined,
        serverTunnelUrl: undefined,
        traceContinuationPerSecond: 10,
        orgId: undefined,
      },
      trustedProxyHops: 0,
      connections: {
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 30_000,
        keepAliveTimeoutMs: 5_000,
        maxConnections: 1_024,
      },
    });
  });

  it.each([
    ['no container limit: memory checks off', undefined, { maxHeapUsedBytes: 0, maxRssBytes: 0 }],
    [
      "the pod's 512 MiB: heap 60 %, RSS 80 %",
      512 * 2 ** 20,
      { maxHeapUsedBytes: 322_122_547, maxRssBytes: 429_496_729 },
    ],
  ])('sizes load shedding from the memory limit (%s)', (_, limit, memory) => {
    expect(loadConfig({}, limit, 1).loadShedding).toEqual({
      maxInFlight: 32,
      maxEventLoopDelayMs: 250,
      maxTurnWaitMs: 250,
      retryAfterSeconds: 5,
      ...memory,
    });
  });

  it('keeps the headers timeout within the request timeout (Node refuses a longer one)', () => {
    const { connections } = loadConfig({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '5000' });
    expect(connections).toMatchObject({ headersTimeoutMs: 5_000, requestTimeoutMs: 5_000 });
  });

  it('names every bad variable at once', () => {
    const read = () =>
      loadConfig({
        SENTRY_TRACES_SAMPLE_RATE: '2',
        SENTRY_DSN: 'not a dsn',
        ALLOWED_ORIGINS: 'https://ok.example,https://bad.example/path',
        PUBLIC_ORIGIN: 'shop.example',
        TUNNEL_PATH: 'monitoring',
        TUNNEL_TARGET: 'ftp://x',
        METRICS_PORT: '70000',
        DIAGNOSTICS: 'maybe',
        MAX_CONNECTIONS: '0',
        TRACE_CONTINUATION_PER_SECOND: '-1',
        SENTRY_ORG_ID: 'acme',
        SHED_EVENT_LOOP_DELAY_MS: 'fast',
        ACCEPT_SOCKETS: '0',
      });
    expect(read).toThrow(ConfigError);
    try {
      read();
    } catch (error) {
      const text = (error as ConfigError).problems.join('\n');
      for (const name of [
        'SENTRY_TRACES_SAMPLE_RATE',
        'SENTRY_DSN',
        'ALLOWED_ORIGINS',
        'PUBLIC_ORIGIN',
        'TUNNEL_PATH',
        'TUNNEL_TARGET',
        'METRICS_PORT',
        'DIAGNOSTICS',
        'MAX_CONNECTIONS',
        'TRACE_CONTINUATION_PER_SECOND',
        'SENTRY_ORG_ID',
        'SHED_EVENT_LOOP_DELAY_MS',
        'ACCEPT_SOCKETS',
      ]) {
        expect(text).toContain(name);
      }
    }
  });

  it.each([
    [
      'the one `tunnel: true` derives from SENTRY_DSN',
      { SENTRY_DSN: 'https://k@o1.ingest.example/5' },
      getTunnelPath('https://k@o1.ingest.example/5'),
    ],
    ['TUNNEL_PATH when set', { SENTRY_DSN: 'https://k@o1.ingest.example/5', TUNNEL_PATH: '/t9' }, '/t9'],
    ['none without a DSN', {}, undefined],
  ])('takes as tunnel path %s', (_, env, path) => {
    expect(loadConfig(env).sentry.tunnelPath).toBe(path);
  });

  // The web's check lets a key with a dash through; the SDK's DSN parser does not, so `tunnel: true` derives no path.
  it('asks for TUNNEL_PATH when SENTRY_DSN derives no path', () => {
    expect(() => loadConfig({ SENTRY_DSN: 'https://k-1@o1.ingest.example/5' })).toThrow(/TUNNEL_PATH must be set/);
    expect(loadConfig({ SENTRY_DSN: 'https://k-1@o1.ingest.example/5', TUNNEL_PATH: '/t9' }).sentry.tunnelPath).toBe(
      '/t9',
    );
  });

  it('turns the tunnel off with TUNNEL_PATH=off', () => {
    expect(loadConfig({ TUNNEL_PATH: 'off' }).sentry.tunnelPath).toBeUndefined();
  });
});
