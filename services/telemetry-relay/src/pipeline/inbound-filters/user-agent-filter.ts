// The shape shared by the filters that judge an event by its User-Agent (legacy browsers, web crawlers).
import { userAgent } from './event-fields.ts';
import type { InboundFilter } from './types.ts';

/** A filter judging events and transactions by their own User-Agent (request.headers), as Relay's UA filters do. */
export function userAgentFilter(id: string, isMatch: (ua: string) => boolean): InboundFilter {
  return {
    id,
    kinds: ['event', 'transaction'],
    keys: ['user-agent'],
    mayMatch: (_key, value) => isMatch(value),
    matches(event) {
      const ua = userAgent(event);
      return ua !== undefined && isMatch(ua);
    },
  };
}
