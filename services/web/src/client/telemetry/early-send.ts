// Sending without the SDK. When the page is hidden before the Sentry SDK is set up (a visitor who leaves at once,
// or whose first error made the SDK start loading), what waits for it leaves in keep-alive requests (sendBeacon)
// through the tunnel, as envelopes like the SDK's: each error with the breadcrumbs recorded before it, and the page's
// session. Part of the entry chunk, so small and without SDK code; the SDK continues the same session later.
import { ignoreErrors } from '@app/telemetry-rules';
import type { ClientConfig } from '../../framework/shared/client-config.ts';
import type { EarlyBreadcrumb } from '../../framework/shared/early-errors.ts';
import { withPageToken } from './page-token.ts';

declare const __SENTRY_SDK_VERSION__: string;

/** An error waiting for the SDK; `at` in seconds since the epoch. */
export interface Report {
  error: unknown;
  /** Unhandled: it crashes the session (decision 014). */
  crash: boolean;
  componentStack?: string;
  tags?: Record<string, string>;
  at: number;
  /** The SDK's mechanism type for an error it would have seen itself (the inline queue's). */
  mechanism?: string;
}

export interface EarlySession {
  sid: string;
  /** Seconds since the epoch. */
  started: number;
  status: 'ok' | 'crashed' | 'exited';
  errors: number;
  /** Whether an update of it has been sent (the SDK then continues it instead of starting its own). */
  sent: boolean;
}

type Sentry = ClientConfig['sentry'];
/** The browser keeps at most 64 KB of keep-alive requests in flight past a page's end. */
const KEEPALIVE_BUDGET = 60_000;
const SDK = {
  name: 'sentry.javascript.react',
  version: typeof __SENTRY_SDK_VERSION__ === 'string' ? __SENTRY_SDK_VERSION__ : 'unknown',
};
const FRAME = /^\s*(?:at (?:(.+?) \()?|(.*?)@)(.+?):(\d+):(\d+)\)?\s*$/;

const hexId = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => (b | 256).toString(16).slice(1)).join('');
const iso = (seconds: number) => new Date(seconds * 1e3).toISOString();

export const newSession = (): EarlySession => ({
  sid: hexId(),
  started: Date.now() / 1e3,
  status: 'ok',
  errors: 0,
  sent: false,
});

/** An uncaught error or rejection from the inline queue, as the SDK's global handlers would have reported it. */
export function reportOfEvent(event: ErrorEvent | PromiseRejectionEvent): Report {
  const rejection = 'reason' in event;
  return {
    error: rejection ? event.reason : (event.error ?? event.message),
    crash: true,
    at: (performance.timeOrigin + event.timeStamp) / 1e3,
    mechanism: `auto.browser.global_handlers.${rejection ? 'onunhandledrejection' : 'onerror'}`,
  };
}

/** Frames of a V8 or SpiderMonkey/JavaScriptCore stack, oldest first as Sentry wants them. */
function framesOf(stack: unknown) {
  const frames = [];
  for (const line of String(stack ?? '').split('\n', 50)) {
    const m = FRAME.exec(line);
    if (m) frames.unshift({ function: m[1] || m[2] || '?', filename: m[3], lineno: +(m[4] ?? 0), colno: +(m[5] ?? 0) });
  }
  return frames;
}

function exceptionOf(report: Report) {
  const error = report.error;
  const type = error instanceof Error ? error.name : 'Error';
  const value = error instanceof Error ? error.message : String(error);
  const frames = framesOf(error instanceof Error ? error.stack : undefined);
  return {
    type,
    value,
    ...(frames.length ? { stacktrace: { frames } } : {}),
    mechanism: {
      type: report.mechanism ?? (report.crash ? 'auto.browser.error_screen' : 'generic'),
      handled: !report.crash,
    },
  };
}

/** Sentry's Debug IDs of the chunks in these frames, so the event's stack is shown with its sources. */
function debugImages(files: Set<string | undefined>) {
  const ids = (window as { _sentryDebugIds?: Record<string, string> })._sentryDebugIds ?? {};
  return Object.entries(ids).flatMap(([stack, debugId]) => {
    const file = framesOf(stack).at(-1)?.filename;
    return files.has(file) ? [{ type: 'sourcemap', code_file: file, debug_id: debugId }] : [];
  });
}

/** Reports the SDK's filters would drop (the shared ignore rules) count for nothing, as they would with the SDK. */
export const isIgnored = (report: Report) => {
  const { type, value } = exceptionOf(report);
  return ignoreErrors.some((rule) => rule.test(value) || rule.test(`${type}: ${value}`));
};

function envelopeUrl(config: Sentry, dsn: string): string {
  if (config.tunnel) return config.tunnel;
  const url = new URL(dsn);
  const cut = url.pathname.lastIndexOf('/');
  return `${url.protocol}//${url.host}${url.pathname.slice(0, cut)}/api${url.pathname.slice(cut)}/envelope/?sentry_key=${url.username}&sentry_version=7`;
}

/** Sends the reports and the session (updated for them) now, each envelope in a keep-alive request, within 60 KB. */
export function sendWithoutSdk(
  config: Sentry,
  reports: Report[],
  breadcrumbs: EarlyBreadcrumb[],
  session: EarlySession,
): void {
  const { dsn, release, environment } = config;
  if (!dsn) return;
  let budget = KEEPALIVE_BUDGET;
  const send = (type: string, payload: object, header: object = {}) => {
    const body = [{ sent_at: new Date().toISOString(), dsn, sdk: SDK, ...header }, { type }, payload]
      .map((part) => JSON.stringify(part))
      .join('\n');
    budget -= body.length;
    return (
      budget >= 0 &&
      navigator.sendBeacon(config.tunnel ? withPageToken(envelopeUrl(config, dsn)) : envelopeUrl(config, dsn), body)
    );
  };
  // Sessions count only with a release (as the SDK sends them).
  if (release) {
    const attrs = { release, environment, user_agent: navigator.userAgent };
    const { sid, started, status, errors, sent } = session;
    send('session', {
      sid,
      init: !sent,
      started: iso(started),
      timestamp: iso(Date.now() / 1e3),
      status,
      errors,
      attrs,
    });
    session.sent = true;
  }
  for (const report of reports) {
    const exception = exceptionOf(report);
    const event_id = hexId();
    const event = {
      event_id,
      timestamp: report.at,
      platform: 'javascript',
      level: 'error',
      release,
      environment,
      exception: { values: [exception] },
      breadcrumbs: breadcrumbs.filter((b) => b.timestamp <= report.at),
      request: { url: location.href, headers: { 'User-Agent': navigator.userAgent } },
      ...(report.tags ? { tags: report.tags } : {}),
      ...(report.componentStack ? { contexts: { react: { componentStack: report.componentStack } } } : {}),
      debug_meta: { images: debugImages(new Set(exception.stacktrace?.frames.map((f) => f.filename))) },
      sdk: SDK,
    };
    if (!send('event', event, { event_id })) break;
  }
}
