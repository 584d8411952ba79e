// An ad blocker in the browser suites: every request of a context goes through uBlock Origin's own engine with the
// lists Debian's uBlock Origin ships (@app/test-kit/filter-lists), and a request a rule blocks fails as the
// extension makes it fail (net::ERR_BLOCKED_BY_CLIENT). What passed and what was blocked, and by which rule, is kept.
import { type Blocker, type FilterList, loadBlocker, type RequestType, type Verdict } from '@app/test-kit/filter-lists';
import type { BrowserContext, Request } from 'playwright-core';

/** Playwright's resource types as the extension's webRequest names them (fetch and XHR alike are `xmlhttprequest`). */
const TYPES: Record<string, RequestType> = {
  stylesheet: 'stylesheet',
  script: 'script',
  image: 'image',
  font: 'font',
  media: 'media',
  fetch: 'xmlhttprequest',
  xhr: 'xmlhttprequest',
  ping: 'ping',
  cspviolationreport: 'csp_report',
  websocket: 'websocket',
};
const typeOf = (request: Request): RequestType => {
  if (request.resourceType() === 'document') return request.frame().parentFrame() ? 'sub_frame' : 'main_frame';
  // Playwright calls a CSP report `other`; the extension sees it as `csp_report`.
  if (/^application\/(csp-report|reports\+json)/.test(request.headers()['content-type'] ?? '')) return 'csp_report';
  return TYPES[request.resourceType()] ?? 'other';
};

export interface Seen {
  url: string;
  type: RequestType;
}
export interface BlockedRequest extends Seen, Verdict {}

export interface AdBlocker {
  blocker: Blocker;
  /** Requests the lists blocked, in order. */
  blocked: BlockedRequest[];
  /** Requests the lists let through, in order. */
  passed: Seen[];
}

/** Puts the blocker in front of every request of `context` (extra lists beside the shipped ones). */
export async function installAdBlocker(context: BrowserContext, extra: FilterList[] = []): Promise<AdBlocker> {
  const blocker = await loadBlocker(extra);
  const state: AdBlocker = { blocker, blocked: [], passed: [] };
  // The page a request is made for: a keep-alive request sent after the page was left is still the old page's.
  let site = 'about:blank';
  await context.route('**/*', async (route) => {
    const request = route.request();
    const type = typeOf(request);
    if (type === 'main_frame') site = request.url();
    const verdict = blocker.match(request.url(), type, type === 'main_frame' ? request.url() : site);
    if (verdict) {
      state.blocked.push({ url: request.url(), type, ...verdict });
      await route.abort('blockedbyclient');
    } else {
      state.passed.push({ url: request.url(), type });
      await route.fallback();
    }
  });
  return state;
}
