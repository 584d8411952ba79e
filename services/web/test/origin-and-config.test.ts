import { ConfigError } from '@app/service-kit';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/server/config.ts';
import { checkOrigin } from '../src/server/origin-check.ts';

describe('origin check', () => {
  const allowed = ['https://www.shop.example'];
  it.each([
    [{ origin: 'http://shop.test' }, true],
    [{ origin: 'https://shop.test' }, true],
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
    expect(checkOrigin(headers, 'shop.test', allowed).ok).toBe(ok);
  });
});

describe('config', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      server: { port: 3000 },
      tunnelPath: '/monitoring',
      tunnelTarget: undefined,
      diagnostics: false,
      metricsPort: undefined,
      sentry: { dsn: undefined, environment: 'production', tracesSampleRate: 0.1 },
    });
  });

  it('names every bad variable at once', () => {
    const read = () =>
      loadConfig({
        SENTRY_TRACES_SAMPLE_RATE: '2',
        SENTRY_DSN: 'not a dsn',
        ALLOWED_ORIGINS: 'https://ok.example,https://bad.example/path',
        TUNNEL_PATH: 'monitoring',
        TUNNEL_TARGET: 'ftp://x',
        METRICS_PORT: '70000',
        DIAGNOSTICS: 'maybe',
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
        'TUNNEL_PATH',
        'TUNNEL_TARGET',
        'METRICS_PORT',
        'DIAGNOSTICS',
      ]) {
        expect(text).toContain(name);
      }
    }
  });

  it('turns the tunnel off with TUNNEL_PATH=off', () => {
    expect(loadConfig({ TUNNEL_PATH: 'off' }).tunnelPath).toBeUndefined();
  });
});
