// Errors before the Sentry SDK arrives (it loads after hydration): a tiny inline script in the head, run before any
// module, keeps uncaught errors and unhandled rejections in a bounded queue; the SDK replays them once it is set up,
// as Sentry's own Loader Script does. Shared by the server (which writes the script) and the client (which drains it).

/** At most this many early errors are kept: a page that keeps throwing must not grow the queue without limit. */
const EARLY_ERRORS_MAX = 30;

export interface EarlyErrors {
  events: Array<ErrorEvent | PromiseRejectionEvent>;
  /** Removes the listeners; the queue stays as it is. */
  stop(): void;
}

declare global {
  interface Window {
    __earlyErrors?: EarlyErrors;
  }
}

/** The inline script's body (no `</script` inside, nothing to escape). */
export const EARLY_ERRORS_SCRIPT =
  '(function(w){var q=[],f=function(e){q.length<' +
  EARLY_ERRORS_MAX +
  "&&q.push(e)};w.addEventListener('error',f);w.addEventListener('unhandledrejection',f);" +
  "w.__earlyErrors={events:q,stop:function(){w.removeEventListener('error',f);w.removeEventListener('unhandledrejection',f)}}})(window)";

/** Stops the inline listeners and hands over what they queued (empty when the script was not on the page). */
export function takeEarlyErrors(win: Window): EarlyErrors['events'] {
  const early = win.__earlyErrors;
  if (!early) return [];
  early.stop();
  delete win.__earlyErrors;
  return early.events;
}
