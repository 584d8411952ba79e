// What the entry chunk knows of Sentry: a queue. The SDK (sentry-sdk.ts, ~45 KB gzip) is imported once the page has
// loaded and the browser is idle, and set up in idle slices (idle.ts); at once at the page's first error (as Sentry's
// Loader Script does) or first navigation. Until then reports wait here, uncaught errors and breadcrumbs in the inline
// queue of framework/shared/early-errors.ts; a page hidden before the SDK is there sends them without it (early-send.ts).
// Which errors crash the session (the client error screen) and which are handled: decision 014.
import type { DataRouter } from 'react-router';
import type { ClientConfig } from '../../framework/shared/client-config.ts';
import { stopEarlyCapture, takeEarlyErrors } from '../../framework/shared/early-errors.ts';
import { afterLoad, idleSlices as slices } from '../idle.ts';
import { type EarlySession, isIgnored, newSession, type Report, reportOfEvent, sendWithoutSdk } from './early-send.ts';

type Sdk = typeof import('./sentry-sdk.ts');
type Sentry = ClientConfig['sentry'];

/** Fully set up: reports go straight to it. */
let sdk: Sdk | undefined;
/** Its client runs, the rest of its setup has not finished: a page hidden now sends through it. */
let client: Sdk | undefined;
let loading: Promise<Sdk | undefined> | undefined;
let config: Sentry = { dsn: undefined, release: undefined, environment: '', tracesSampleRate: 0, tunnel: undefined };
/** Reports kept while the SDK loads; beyond this a page that keeps failing drops the rest. */
const MAX_WAITING = 30;
const waiting: Report[] = [];
/** The page's session until the SDK has one (it continues this one once a page hidden early has sent it). */
let session: EarlySession = newSession();
let setRouter: (router: DataRouter | undefined) => void = () => {};
const routerReady = new Promise<DataRouter | undefined>((resolve) => {
  setRouter = resolve;
});

function report(fields: Omit<Report, 'at'>): void {
  const full = { ...fields, at: Date.now() / 1e3 };
  if (sdk) {
    sdk.captureReport(full);
    return;
  }
  if (waiting.length < MAX_WAITING) waiting.push(full);
  loadNow();
}

export function captureException(error: unknown, tags?: Record<string, string>): void {
  report({ error, crash: false, ...(tags ? { tags } : {}) });
}

// React tells of an error it caught (onCaughtError) in the same commit in which the route's error screen shows it
// (ClientErrorScreen's layout effect): both are noted, and decided together once the commit is over.
const caught = new Map<unknown, string>();
const crashes = new Set<unknown>();
/** The last errors reported, so that one seen by both hooks is reported once. */
const reported: unknown[] = [];
let settling = false;

function settle(): void {
  settling = false;
  const once = (error: unknown, fields: Omit<Report, 'at' | 'error'>) => {
    if (reported.includes(error)) return;
    reported.push(error);
    if (reported.length > 20) reported.shift();
    report({ error, ...fields });
  };
  for (const [error, componentStack] of caught) once(error, { componentStack, crash: crashes.has(error) });
  for (const error of crashes) once(error, { crash: true });
  caught.clear();
  crashes.clear();
}
const settleSoon = () => {
  if (settling) return;
  settling = true;
  queueMicrotask(settle);
};

/** For hydrateRoot's onCaughtError and onRecoverableError: to the console at once (as React would), then reported. */
export function reportReactError(error: unknown, info: { componentStack?: string | undefined }): void {
  console.error(error);
  caught.set(error, info.componentStack ?? '');
  settleSoon();
}

/** For onUncaughtError: React has unmounted the page, a crash. */
export function reportUncaughtReactError(error: unknown, info: { componentStack?: string | undefined }): void {
  crashes.add(error);
  reportReactError(error, info);
}

/** The route's client error screen ("Application error") shows `error`: the page failed, a crash. */
export function errorScreenShown(error: unknown): void {
  crashes.add(error);
  settleSoon();
}

/** Imports and starts the SDK (once); resolves with it, or undefined when Sentry is off or its chunk failed. */
function loadSentry(): Promise<Sdk | undefined> {
  loading ??= (async () => {
    if (!config.dsn) {
      stopEarlyCapture(window);
      takeEarlyErrors(window);
      waiting.length = 0;
      return undefined;
    }
    try {
      const started = performance.now();
      const loaded = await import('./sentry-sdk.ts');
      await slices.next();
      const prepared = loaded.prepareClient(config);
      if (!prepared) return undefined;
      await slices.next();
      // Read now: a page hidden in between has sent its session without the SDK, which continues it.
      loaded.startClient(prepared, session.sent ? session : undefined);
      client = loaded;
      await loaded.finishSetup(await routerReady, slices.next);
      performance.measure('app:sentry-load', { start: started });
      sdk = loaded;
      for (const waited of waiting.splice(0)) loaded.captureReport(waited);
      return loaded;
    } catch (error) {
      console.warn('[sentry] the SDK did not load; errors of this page are not reported', error);
      return undefined;
    }
  })();
  return loading;
}

/** The first error (or navigation) does not wait for idle periods. */
function loadNow(): void {
  slices.hurry();
  void loadSentry();
}

/** The page is hidden (or left, `left`) before the SDK is set up: what waits goes now, through it or without it. */
function sendWhatWaits(left: boolean): void {
  if (sdk || !config.dsn) return;
  if (client) {
    client.replayEarlyErrors();
    sdk = client;
    for (const waited of waiting.splice(0)) client.captureReport(waited);
    return;
  }
  const reports = [...takeEarlyErrors(window).map(reportOfEvent), ...waiting.splice(0)].filter((r) => !isIgnored(r));
  const before = session.status;
  if (reports.length > 0) session.errors = 1;
  if (reports.some((r) => r.crash)) session.status = 'crashed';
  else if (left && session.status === 'ok') session.status = 'exited';
  // Hidden, then left (or the other way round): the second time there may be nothing new to say.
  if (session.sent && reports.length === 0 && session.status === before) return;
  sendWithoutSdk(config, reports, window.__earlyErrors?.breadcrumbs ?? [], session);
}

/** First thing in the entry: the page's Sentry settings, and what must happen before the SDK is there. */
export function startTelemetry(sentry: Sentry): void {
  config = sentry;
  if (!sentry.dsn) return;
  if (window.__earlyErrors?.events.length) loadNow();
  for (const type of ['error', 'unhandledrejection']) addEventListener(type, loadNow, { once: true });
  addEventListener('visibilitychange', () => document.visibilityState === 'hidden' && sendWhatWaits(false));
  addEventListener('pagehide', () => sendWhatWaits(true));
  // Restored from the back/forward cache: a new visit (the SDK, once there, does the same, page-session.ts).
  addEventListener('pageshow', (event) => {
    if (event.persisted && !sdk) session = newSession();
  });
}

/**
 * Resolves once a started SDK load has settled, or after `ms`: a navigation that begins while the SDK loads waits
 * for it (bounded), so its page-data or action request already carries the navigation's trace.
 */
export function sentrySettled(ms: number): Promise<unknown> {
  if (!loading || sdk) return Promise.resolve();
  return Promise.race([loading, new Promise((resolve) => setTimeout(resolve, ms))]);
}

/** The page stays server-rendered (its route code did not load): an SDK loaded for an error sets up without tracing. */
export function noRouter(): void {
  setRouter(undefined);
}

/**
 * After hydration: once the page has loaded, at idle time; or at the first navigation if that comes sooner (so it
 * gets its transaction), then without waiting for idle periods.
 */
export function loadSentryWhenIdle(router: DataRouter): Promise<Sdk | undefined> {
  setRouter(router);
  return new Promise((resolve) => {
    const load = () => {
      unsubscribe();
      resolve(loadSentry());
    };
    const unsubscribe = router.subscribe((state) => {
      if (state.navigation.state === 'idle') return;
      slices.hurry();
      load();
    });
    void afterLoad().then(slices.next).then(load);
  });
}
