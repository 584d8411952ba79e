// A same-run baseline for a test that times a timeout: how late a plain timer fires while the timeout runs. A loaded
// machine delays the service's timers as much as this one, so a bound that adds it fails on the service, not the host.

/** Starts an `ms` timer now; resolves with how many ms after its due time it fired. */
export function timerLateness(ms: number): Promise<number> {
  const due = performance.now() + ms;
  return new Promise((resolve) => setTimeout(() => resolve(Math.max(0, performance.now() - due)), ms));
}
