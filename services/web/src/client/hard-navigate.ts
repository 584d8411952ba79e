/**
 * Leaves the client router: a full page load of `url`. Used when page data or route code cannot be had. Returns a
 * promise that never settles, so the router stays "loading" while the page unloads instead of rendering an error.
 */
export function hardNavigate(url: string, reason: string): Promise<never> {
  console.warn(`[router] full page load of ${url}: ${reason}`);
  window.location.assign(url);
  return new Promise<never>(() => {});
}
