// Work that is not needed for the page to be usable (the Sentry SDK's setup, prefetching) runs in small slices when
// the browser is idle, so none of it is a long task while the page loads; hurry() makes the waiting slices run at
// once (a navigation needs the SDK now).

/** Resolves after the document's `load` event (at once if it has fired). */
export function afterLoad(): Promise<void> {
  if (document.readyState === 'complete') return Promise.resolve();
  return new Promise((resolve) => addEventListener('load', () => resolve(), { once: true }));
}

/** Resolves in a later task, so that what comes next is a task of its own. */
export const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export interface IdleSlices {
  /** Resolves in the browser's next idle period (or after `timeoutMs`), or in the next task once hurried. */
  next(): Promise<void>;
  hurry(): void;
}

export function createIdleSlices(timeoutMs = 2_000): IdleSlices {
  const waiting = new Set<() => void>();
  let hurried = false;
  return {
    next() {
      if (hurried || !('requestIdleCallback' in window)) return nextTask();
      return new Promise((resolve) => {
        const run = () => {
          if (!waiting.delete(run)) return;
          cancelIdleCallback(handle);
          resolve();
        };
        waiting.add(run);
        const handle = requestIdleCallback(run, { timeout: timeoutMs });
      });
    },
    hurry() {
      hurried = true;
      for (const run of [...waiting]) setTimeout(run, 0);
    },
  };
}

/** The page's one set of slices: the SDK's setup and what waits for it share the idle periods, and one hurry. */
export const idleSlices = createIdleSlices();
