// What a page hidden before the Sentry SDK sends (client/telemetry/early-send.ts): envelopes the relay and Sentry read like the
// SDK's, to the tunnel or straight to the DSN's intake, within the keep-alive budget. The browser path is proven in
// e2e/web/early-telemetry.test.ts; this covers what Chromium there does not reach (direct mode, the budget, stacks).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isIgnored, newSession, type Report, sendWithoutSdk } from '../../src/client/telemetry/early-send.ts';

const CHUNK = 'https://shop.example/assets/entry-abc.js';
const V8_STACK = `Error: boom\n    at inner (${CHUNK}:1:200)\n    at outer (${CHUNK}:1:100)\n    at ${CHUNK}:1:50`;

let sent: Array<{ url: string; lines: unknown[] }> = [];
beforeEach(() => {
  sent = [];
  vi.stubGlobal('navigator', {
    userAgent: 'test-agent',
    sendBeacon: (url: string, body: string) => {
      sent.push({ url, lines: body.split('\n').map((line) => JSON.parse(line)) });
      return true;
    },
  });
  vi.stubGlobal('location', { href: 'https://shop.example/catalog' });
  vi.stubGlobal('window', { _sentryDebugIds: { [`Error\n    at ${CHUNK}:1:1`]: 'debug-id-of-entry' } });
});
afterEach(() => vi.unstubAllGlobals());

const config = (tunnel?: string) => ({
  dsn: 'https://key123@o1.ingest.example/prefix/42',
  release: 'web@1',
  environment: 'production',
  tracesSampleRate: 0,
  tunnel,
});
const crash = (error: unknown, at = 1_000): Report => ({ error, crash: true, at });
const thrown = () => Object.assign(new Error('boom'), { stack: V8_STACK });

describe('sending without the SDK', () => {
  it('posts to the tunnel, or to the DSN intake (path prefix kept) when there is none', () => {
    sendWithoutSdk(config('/monitoring'), [], [], newSession());
    sendWithoutSdk(config(), [], [], newSession());
    expect(sent.map((s) => s.url)).toEqual([
      '/monitoring',
      'https://o1.ingest.example/prefix/api/42/envelope/?sentry_key=key123&sentry_version=7',
    ]);
  });

  it('sends the session first (init once) and each error as its own envelope, like the SDK', () => {
    const session = newSession();
    session.status = 'crashed';
    session.errors = 1;
    const breadcrumbs = [
      { timestamp: 999, category: 'console', message: 'before' },
      { timestamp: 1_001, category: 'console', message: 'after' },
    ];
    sendWithoutSdk(config('/monitoring'), [crash(thrown())], breadcrumbs, session);
    const [sessionEnvelope, eventEnvelope] = sent;
    expect(sessionEnvelope?.lines[0]).toMatchObject({ dsn: config().dsn, sdk: { name: 'sentry.javascript.react' } });
    expect(sessionEnvelope?.lines[1]).toEqual({ type: 'session' });
    expect(sessionEnvelope?.lines[2]).toMatchObject({
      sid: session.sid,
      init: true,
      status: 'crashed',
      errors: 1,
      attrs: { release: 'web@1', environment: 'production', user_agent: 'test-agent' },
    });
    expect(session.sid).toMatch(/^[0-9a-f]{32}$/);

    const [header, item, event] = (eventEnvelope?.lines ?? []) as [Record<string, unknown>, unknown, object];
    expect(item).toEqual({ type: 'event' });
    expect(header.event_id).toBe((event as { event_id?: string }).event_id);
    expect(event).toMatchObject({
      release: 'web@1',
      timestamp: 1_000,
      exception: {
        values: [
          {
            type: 'Error',
            value: 'boom',
            mechanism: { handled: false, type: 'auto.browser.error_screen' },
            // Oldest first, as Sentry lists frames.
            stacktrace: {
              frames: [
                { function: '?', filename: CHUNK, lineno: 1, colno: 50 },
                { function: 'outer', filename: CHUNK, lineno: 1, colno: 100 },
                { function: 'inner', filename: CHUNK, lineno: 1, colno: 200 },
              ],
            },
          },
        ],
      },
      breadcrumbs: [{ timestamp: 999, category: 'console', message: 'before' }],
      debug_meta: { images: [{ type: 'sourcemap', code_file: CHUNK, debug_id: 'debug-id-of-entry' }] },
    });

    sendWithoutSdk(config('/monitoring'), [], [], session);
    expect(sent[2]?.lines[2]).toMatchObject({ sid: session.sid, init: false });
  });

  it('reads a Firefox or Safari stack too, and a thrown non-error as its text', () => {
    const firefox = Object.assign(new Error('boom'), { stack: `inner@${CHUNK}:1:200\nouter@${CHUNK}:1:100\n` });
    sendWithoutSdk(
      { ...config('/monitoring'), release: undefined },
      [crash(firefox), crash('a string')],
      [],
      newSession(),
    );
    const events = sent.map((s) => s.lines[2] as { exception: { values: Array<Record<string, unknown>> } });
    expect(events[0]?.exception.values[0]?.stacktrace).toEqual({
      frames: [
        { function: 'outer', filename: CHUNK, lineno: 1, colno: 100 },
        { function: 'inner', filename: CHUNK, lineno: 1, colno: 200 },
      ],
    });
    expect(events[1]?.exception.values[0]).toMatchObject({ type: 'Error', value: 'a string' });
  });

  it('stays within the 60 KB a page may keep in flight after it ends, session first', () => {
    const big = Array.from({ length: 100 }, (_, i) => ({
      timestamp: 1,
      category: 'console',
      message: 'x'.repeat(200) + i,
    }));
    sendWithoutSdk(
      config('/monitoring'),
      Array.from({ length: 10 }, () => crash(thrown())),
      big,
      newSession(),
    );
    const bytes = sent.reduce((sum, s) => sum + s.lines.map((l) => JSON.stringify(l)).join('\n').length, 0);
    expect(sent[0]?.lines[1]).toEqual({ type: 'session' });
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.length).toBeLessThan(11);
    expect(bytes).toBeLessThanOrEqual(60_000);
  });

  it('ignores what the shared rules ignore (it does not crash the session)', () => {
    expect(isIgnored(crash(new Error('ResizeObserver loop completed with undelivered notifications.')))).toBe(true);
    expect(isIgnored(crash('Script error.'))).toBe(true);
    expect(isIgnored(crash(thrown()))).toBe(false);
  });
});
