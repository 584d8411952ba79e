// The telemetry path as production runs it, on loopback: the browser posts to the web service's same-origin tunnel
// path, the web service forwards to a real relay process (allowlist, filters, spool), and the relay sends upstream to
// a capture server standing in for Sentry. Suites assert only what arrives upstream, so they keep guarding however
// the browser SDK is loaded. Also the helpers that read captured envelopes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type CapturedEnvelope,
  type CaptureServer,
  type ServiceProcess,
  spawnService,
  startCaptureServer,
} from '@app/test-kit';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium, waitForHydration, waitForSentry, watchConsole } from './browser.ts';
import { startWeb } from './web.ts';

const relayEntry = fileURLToPath(new URL('../../services/telemetry-relay/src/main.ts', import.meta.url));

export interface TelemetryStack {
  capture: CaptureServer;
  relay: ServiceProcess;
  web: ServiceProcess;
  close(): Promise<void>;
}

/** Capture server ← relay ← web (tunnel), every part a real server; `webEnv`, `relayEnv` add to their environments. */
export async function startTelemetryStack(
  webEnv: Record<string, string> = {},
  relayEnv: Record<string, string> = {},
): Promise<TelemetryStack> {
  const capture = await startCaptureServer();
  const relay = await spawnService(relayEntry, {
    env: {
      ALLOWED_DSNS: capture.dsn(),
      UPSTREAM_URL: capture.envelopeUrl('1'),
      SPOOL_DIR: mkdtempSync(join(tmpdir(), 'telemetry-stack-spool-')),
      SPOOL_MODE: 'fast',
      // The web service's tunnel proxy is the one hop in front; the browser's address goes upstream.
      TRUSTED_PROXY_HOPS: '1',
      ...relayEnv,
    },
  });
  const web = await startWeb({
    SENTRY_DSN: capture.dsn(),
    SENTRY_TRACES_SAMPLE_RATE: '1',
    // Sessions are only sent with a release.
    SENTRY_RELEASE: 'web@e2e',
    SENTRY_ENVIRONMENT: 'e2e',
    TUNNEL_TARGET: relay.url,
    ...webEnv,
  });
  return {
    capture,
    relay,
    web,
    async close() {
      await web.kill();
      await relay.kill();
      await capture.close();
    },
  };
}

export type Json = Record<string, unknown>;

/** The JSON payload of an envelope's first item of `type`. */
export const itemOf = (envelope: CapturedEnvelope, type: string): Json | undefined =>
  envelope.items.find((item) => item.type === type)?.json as Json | undefined;

/** Sent by the browser SDK (the server's is sentry.javascript.node). */
export const fromBrowser = (envelope: CapturedEnvelope): boolean =>
  String((envelope.header.sdk as { name?: string } | undefined)?.name).includes('react');

/** The exception values of an error event, joined: what a person reads as its message. */
export const exceptionValue = (event: Json | undefined): string =>
  ((event?.exception as { values?: Array<{ value?: string }> } | undefined)?.values ?? [])
    .map((v) => v.value)
    .join(' ');

/** Every error event captured so far, as its exception text or message. */
export const errorTexts = (capture: CaptureServer): string[] =>
  capture.items('event').map((item) => {
    const event = item.json as Json;
    return exceptionValue(event) || String(event.message ?? '');
  });

export interface BrowserTransaction {
  transaction: string;
  transaction_info?: { source?: string };
  contexts: { trace: { op: string; trace_id: string; span_id: string; data?: Json } };
  start_timestamp: number;
  timestamp: number;
  spans: Array<{ op?: string; description?: string; trace_id: string; parent_span_id?: string; data?: Json }>;
}

/** The browser's transaction (pageload or navigation) that satisfies `match`, as it arrived upstream. */
export async function browserTransaction(
  capture: CaptureServer,
  match: (transaction: BrowserTransaction) => boolean,
  timeoutMs = 20_000,
): Promise<BrowserTransaction> {
  const of = (e: CapturedEnvelope) => itemOf(e, 'transaction') as BrowserTransaction | undefined;
  const envelope = await capture.waitFor((e) => {
    const transaction = of(e);
    return fromBrowser(e) && transaction !== undefined && match(transaction);
  }, timeoutMs);
  return of(envelope) as BrowserTransaction;
}

export interface StreamedSpan {
  trace_id: string;
  span_id: string;
  name: string;
  attributes?: Record<string, { value?: unknown }>;
}

/** The Node SDK's spans of one trace (it streams `span` items, v2 containers, not `transaction` items). */
export async function serverSpans(
  capture: CaptureServer,
  traceId: string,
  timeoutMs = 20_000,
): Promise<StreamedSpan[]> {
  const spansOf = (e: CapturedEnvelope) =>
    ((itemOf(e, 'span') as { items?: StreamedSpan[] } | undefined)?.items ?? []).filter((s) => s.trace_id === traceId);
  await capture.waitFor((e) => spansOf(e).length > 0, timeoutMs);
  return capture.envelopes.flatMap(spansOf);
}

/** The trace id of a `sentry-trace` header value (`<trace id>-<span id>[-<sampled>]`). */
export const traceIdOf = (sentryTrace: string | undefined): string | undefined => sentryTrace?.split('-')[0];

export interface TelemetrySuite {
  readonly stack: TelemetryStack;
  readonly browser: Browser;
  /** A new page at `path` of the web service, hydrated, its console watched. */
  open(path: string): Promise<{ page: Page; seen: ReturnType<typeof watchConsole> }>;
}

/** A suite's stack and Chromium, started before its tests and stopped after them. */
export function telemetrySuite(
  webEnv: Record<string, string> = {},
  relayEnv: Record<string, string> = {},
): TelemetrySuite {
  let stack: TelemetryStack | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    [stack, browser] = await Promise.all([startTelemetryStack(webEnv, relayEnv), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the telemetry suite has not started (use it inside tests)');
    return value;
  };
  return {
    get stack() {
      return started(stack);
    },
    get browser() {
      return started(browser);
    },
    async open(path) {
      const page = await started(browser).newPage();
      const seen = watchConsole(page);
      await page.goto(`${started(stack).web.url}${path}`);
      await waitForHydration(page);
      // The SDK loads after hydration: what these suites check is its work, from the moment it is there.
      await waitForSentry(page);
      return { page, seen };
    },
  };
}

/** Throws `message` in the page and waits until its event has arrived upstream: what was sent before it has too. */
export async function sendSentinel(stack: TelemetryStack, page: Page, message: string): Promise<void> {
  await page.evaluate((text) => {
    setTimeout(() => {
      throw new Error(text);
    });
  }, message);
  await stack.capture.waitFor((e) => exceptionValue(itemOf(e, 'event')).includes(message), 20_000);
}

/** The relay's count of items it dropped for `reason` (an ignore rule or an inbound filter's id). */
export async function relayDropped(stack: TelemetryStack, reason: string): Promise<number> {
  const text = await (await fetch(`${stack.relay.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('relay_items_dropped_total{') && line.includes(`reason="${reason}"`))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}
