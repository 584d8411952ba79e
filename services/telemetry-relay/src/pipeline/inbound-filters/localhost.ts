// relay-filter/src/localhost.rs (opt-in, as in Sentry): the user's address is a loopback one, or the page's URL is
// on localhost.
import { requestUrl, userIp } from './event-fields.ts';
import type { InboundFilter } from './types.ts';

const LOCAL_IPS = new Set(['127.0.0.1', '::1']);
const LOCAL_DOMAINS = new Set(['127.0.0.1', 'localhost']);

function urlHost(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

export const localhost: InboundFilter = {
  id: 'localhost',
  kinds: ['event', 'transaction'],
  keys: ['ip_address', 'url'],
  mayMatch: (key, value) => (key === 'url' ? /localhost|127\.0\.0\.1/i.test(value) : LOCAL_IPS.has(value)),
  matches(event) {
    const ip = userIp(event);
    if (ip !== undefined && LOCAL_IPS.has(ip)) return true;
    const url = requestUrl(event);
    const host = url === undefined ? undefined : urlHost(url);
    return host !== undefined && LOCAL_DOMAINS.has(host);
  },
};
