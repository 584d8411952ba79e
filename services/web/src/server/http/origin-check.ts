// CSRF check for actions (React Router's data mode has none): a POST is accepted when its Origin is this site's
// (scheme and host) or an allowed one; without Origin, when Sec-Fetch-Site is same-origin or none; with neither, since
// only browsers carry ambient cookies across sites and every current one sends at least one of the two.

/** Client text quoted in a refusal or a log line: a short prefix, JSON-quoted. */
export const quoted = (text: string, max = 100) => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);

export type OriginVerdict = { ok: true } | { ok: false; reason: string };

export function checkOrigin(
  headers: { origin?: string | undefined; 'sec-fetch-site'?: string | undefined },
  siteOrigin: string,
  allowedOrigins: readonly string[],
): OriginVerdict {
  const origin = headers.origin;
  if (origin !== undefined) {
    if (allowedOrigins.includes(origin)) return { ok: true };
    const url = origin === 'null' ? null : URL.parse(origin);
    if (url && url.origin === URL.parse(siteOrigin)?.origin) return { ok: true };
    return {
      ok: false,
      reason: `cross-site POST refused: Origin ${quoted(origin)} is not ${quoted(siteOrigin)} nor an allowed origin`,
    };
  }
  const site = headers['sec-fetch-site'];
  if (site === undefined || site === 'same-origin' || site === 'none') return { ok: true };
  return { ok: false, reason: `cross-site POST refused: Sec-Fetch-Site is ${quoted(String(site))}` };
}
