// The target of the full page load under way: a navigation whose code and data both fail, or a route with two lazy
// parts, asks more than once, and each location.assign() would restart the load (another document request).
let leavingFor: string | undefined;

/**
 * Leaves the client router: a full page load of `url`. Used when page data or route code cannot be had. Returns a
 * promise that never settles, so the router stays "loading" while the page unloads instead of rendering an error.
 */
export function hardNavigate(url: string, reason: string): Promise<never> {
  if (url !== leavingFor) {
    leavingFor = url;
    // Back to this page from the back/forward cache: a later failure must be able to leave again.
    window.addEventListener('pageshow', () => (leavingFor = undefined), { once: true });
    console.warn(`[router] full page load of ${url}: ${reason}`);
    window.location.assign(url);
  }
  return new Promise<never>(() => {});
}
