// What the entry chunk knows of Sentry: a queue. The SDK (sentry-sdk.ts, ~45 KB gzip) is imported once the page has
// loaded and the browser is idle, and set up in idle slices (idle.ts), or all at once when the user navigates first;
// until then reports wait here, and uncaught errors wait in the inline queue of framework/early-errors.ts.
import type { DataRouter } from 'react-router';
import type { ClientConfig } from '../framework/client-config.ts';
import { afterLoad, idleSlices as slices } from './idle.ts';

type Sdk = typeof import('./sentry-sdk.ts');

let sdk: Sdk | undefined;
let loading: Promise<Sdk | undefined> | undefined;
const waiting: Array<(sdk: Sdk) => void> = [];
/** Reports kept while the SDK loads; beyond this a page that keeps failing drops the rest. */
const MAX_WAITING = 30;

function whenSdk(use: (sdk: Sdk) => void): void {
  if (sdk) use(sdk);
  else if (waiting.length < MAX_WAITING) waiting.push(use);
}

export function captureException(error: unknown, tags?: Record<string, string>): void {
  whenSdk((s) => s.captureException(error, tags ? { tags } : undefined));
}

/** For hydrateRoot's error hooks: to the console at once (as React would by default), to Sentry once it is there. */
export function reportReactError(error: unknown, info: { componentStack?: string | undefined }): void {
  console.error(error);
  whenSdk((s) => s.captureReactError(error, info.componentStack));
}

/** Imports and starts the SDK (once); resolves with it, or undefined when Sentry is off or its chunk failed. */
function loadSentry(config: ClientConfig['sentry'], router: DataRouter): Promise<Sdk | undefined> {
  loading ??= (async () => {
    if (!config.dsn) {
      window.__earlyErrors?.stop();
      waiting.length = 0;
      return undefined;
    }
    try {
      const started = performance.now();
      const loaded = await import('./sentry-sdk.ts');
      await loaded.startSentry(config, router, slices.next);
      performance.measure('app:sentry-load', { start: started });
      sdk = loaded;
      for (const use of waiting.splice(0)) use(loaded);
      return loaded;
    } catch (error) {
      console.warn('[sentry] the SDK did not load; errors of this page are not reported', error);
      return undefined;
    }
  })();
  return loading;
}

/**
 * Resolves once a started SDK load has settled, or after `ms`: a navigation that begins while the SDK loads waits
 * for it (bounded), so its page-data or action request already carries the navigation's trace.
 */
export function sentrySettled(ms: number): Promise<unknown> {
  if (!loading || sdk) return Promise.resolve();
  return Promise.race([loading, new Promise((resolve) => setTimeout(resolve, ms))]);
}

/**
 * After hydration: once the page has loaded, at idle time; or at the first navigation if that comes sooner (so it
 * gets its transaction), then without waiting for idle periods.
 */
export function loadSentryWhenIdle(config: ClientConfig['sentry'], router: DataRouter): Promise<Sdk | undefined> {
  return new Promise((resolve) => {
    const load = () => {
      unsubscribe();
      resolve(loadSentry(config, router));
    };
    const unsubscribe = router.subscribe((state) => {
      if (state.navigation.state === 'idle') return;
      slices.hurry();
      load();
    });
    void afterLoad().then(slices.next).then(load);
  });
}
