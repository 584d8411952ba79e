// relay-filter/src/legacy_browsers.rs with the subfilters Sentry turns on for a new project (ie, edge, safari, firefox,
// chrome, opera, android, opera_mini), each at or below Sentry's version. Relay learns the family from uap-core's
// regexes; this reads the tokens they key on, for these eight only (docs/relay-differences.md).
import { userAgentFilter } from './user-agent-filter.ts';

/** Highest major version filtered, per family. */
const FILTERED_UP_TO: Record<string, number> = {
  IE: 11,
  Edge: 18,
  Safari: 11,
  Firefox: 66,
  Chrome: 62,
  Opera: 50,
  Android: 3,
  'Opera Mini': 34,
};

const TRIDENT = /Trident\/\d/g;
const RV = /rv:\d/g;
/** What `.` does not match (no `s` flag). */
const LINE_END = /[\n\r\u2028\u2029]/g;

/**
 * `/Trident\/\d.*rv:\d/` without its backtracking (quadratic in `Trident/1` repeated, decision 045): some
 * `Trident/<digit>` followed on its line by `rv:<digit>`. The first `rv:` after a Trident is looked up once.
 */
export function tridentWithRv(ua: string): boolean {
  let rv = -1;
  for (let from = 0; ; ) {
    TRIDENT.lastIndex = from;
    const trident = TRIDENT.exec(ua);
    if (!trident) return false;
    const after = trident.index + trident[0].length;
    if (rv < after) {
      RV.lastIndex = after;
      const found = RV.exec(ua);
      if (!found) return false;
      rv = found.index;
    }
    LINE_END.lastIndex = after;
    const lineEnd = LINE_END.exec(ua)?.index ?? ua.length;
    if (rv < lineEnd) return true;
    from = lineEnd + 1;
  }
}

const major = (match: RegExpExecArray | null) => (match ? Number.parseInt(match[1] as string, 10) : undefined);

/** The browser family and major version, for the families above (undefined for any other). */
export function browserOf(ua: string): { family: string; major: number } | undefined {
  const pick = (family: string, version: number | undefined) =>
    version === undefined || Number.isNaN(version) ? undefined : { family, major: version };
  if (/Opera Mini\//.test(ua)) return pick('Opera Mini', major(/Opera Mini\/(\d+)/.exec(ua)));
  if (/\bOPR\//.test(ua)) return pick('Opera', major(/\bOPR\/(\d+)/.exec(ua)));
  if (/^Opera\//.test(ua)) return pick('Opera', major(/Version\/(\d+)/.exec(ua)) ?? major(/^Opera\/(\d+)/.exec(ua)));
  if (/\bEdge\/\d/.test(ua)) return pick('Edge', major(/\bEdge\/(\d+)/.exec(ua)));
  if (/\bEdg(?:A|iOS)?\//.test(ua)) return pick('Edge', major(/\bEdg(?:A|iOS)?\/(\d+)/.exec(ua)));
  if (/MSIE \d/.test(ua)) return pick('IE', major(/MSIE (\d+)/.exec(ua)));
  if (tridentWithRv(ua)) return pick('IE', major(/rv:(\d+)/.exec(ua)));
  if (/\b(?:Firefox|FxiOS)\//.test(ua)) return pick('Firefox', major(/\b(?:Firefox|FxiOS)\/(\d+)/.exec(ua)));
  if (/\b(?:Chrome|CriOS)\//.test(ua)) return pick('Chrome', major(/\b(?:Chrome|CriOS)\/(\d+)/.exec(ua)));
  if (/Android [\d.]+/.test(ua) && /Version\/\d/.test(ua)) return pick('Android', major(/Android (\d+)/.exec(ua)));
  if (/Safari\//.test(ua) && /Version\/\d/.test(ua)) return pick('Safari', major(/Version\/(\d+)/.exec(ua)));
  return undefined;
}

export function isLegacyBrowser(ua: string): boolean {
  const browser = browserOf(ua);
  if (!browser) return false;
  const limit = FILTERED_UP_TO[browser.family];
  return limit !== undefined && browser.major <= limit;
}

export const legacyBrowsers = userAgentFilter('legacy-browsers', isLegacyBrowser);
