// Records where a full page load would go, for tests of the client in a page that must not really leave.
import { onTestFinished, vi } from 'vitest';

/**
 * Where hardNavigate sends the browser (window.location.assign), recorded for one test. When it finishes the page
 * "comes back" (pageshow, as from the back/forward cache), so the next test can leave for the same address again.
 */
export function watchFullLoads(): string[] {
  const assigned: string[] = [];
  const page = new EventTarget();
  vi.stubGlobal('window', {
    location: { assign: (url: string) => assigned.push(url) },
    addEventListener: page.addEventListener.bind(page),
    dispatchEvent: page.dispatchEvent.bind(page),
  });
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  onTestFinished(() => void page.dispatchEvent(new Event('pageshow')));
  return assigned;
}
