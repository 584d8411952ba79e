// relay-filter/src/csp.rs with Sentry's default disallowed sources (sentry/interfaces/security.py
// `DEFAULT_DISALLOWED_SOURCES`, on while "Use default ignored sources" is, as for a new project): a CSP report whose
// blocked URI or source file is an extension, a browser page or a known injector says nothing about the site.
import { asObject } from './event-fields.ts';
import type { InboundFilter, Json } from './types.ts';

export const DEFAULT_DISALLOWED_SOURCES = [
  'about',
  'ms-browser-extension',
  'chrome://*',
  'chrome-extension://*',
  'chromeinvokeimmediate://*',
  'chromenull://*',
  'data:text/html,chromewebdata',
  'safari-extension://*',
  'mxaddon-pkg://*',
  'jar://*',
  'webviewprogressproxy://*',
  'ms-browser-extension://*',
  'tmtbff://*',
  'mbinit://*',
  'symres://*',
  'resource://*',
  'moz-extension://*',
  '*.metrext.com',
  'static.image2play.com',
  '*.tlscdn.com',
  '73a5b0806e464be8bd4e694c744624f0.com',
  '020dfefc4ac745dab7594f2f771c1ded.com',
  '*.superfish.com',
  'addons.mozilla.org',
  'v.zilionfast.in',
  'widgets.amung.us',
  'xls.searchfun.in',
  'istatic.datafastguru.info',
  'localhost',
  'resultshub-a.akamaihd.net',
  'pulseadnetwork.com',
  'gateway.zscalertwo.net',
  'www.passpack.com',
  'middlerush-a.akamaihd.net',
  'www.websmartcenter.com',
  'a.linkluster.com',
  'saveyoutime.ru',
  'cdncache-a.akamaihd.net',
  'x.rafomedia.com',
  'savingsslider-a.akamaihd.net',
  'injections.adguard.com',
  'icontent.us',
  'amiok.org',
  'connectionstrenth.com',
  'siteheart.net',
  'netanalitics.space',
  'printapplink.com',
  'godlinkapp.com',
  'devappstor.com',
  'hoholikik.club',
  'smartlink.cool',
  'promfflinkdev.com',
];

/** Relay's SchemeDomainPort: each part lowercased, `*` (or absent) matching anything. */
interface SchemeDomainPort {
  scheme: string | undefined;
  domain: string | undefined;
  port: string | undefined;
}

const part = (text: string) => (text === '*' ? undefined : text.toLowerCase());

export function schemeDomainPort(url: string): SchemeDomainPort {
  const schemeEnd = url.indexOf('://');
  const scheme = schemeEnd === -1 ? undefined : part(url.slice(0, schemeEnd));
  const rest = schemeEnd === -1 ? url : url.slice(schemeEnd + 3);
  const slash = rest.indexOf('/');
  const domainPort = slash === -1 ? rest : rest.slice(0, slash);
  const colon = domainPort.indexOf(':');
  if (colon === -1) return { scheme, domain: part(domainPort), port: undefined };
  return { scheme, domain: part(domainPort.slice(0, colon)), port: part(domainPort.slice(colon + 1)) };
}

/** Relay's `matches_any_origin`. */
export function matchesAnyOrigin(url: string | undefined, origins: readonly SchemeDomainPort[]): boolean {
  if (origins.some((o) => o.scheme === undefined && o.port === undefined && o.domain === undefined)) return true;
  if (url === undefined) return false;
  const target = schemeDomainPort(url);
  for (const origin of origins) {
    if (origin.scheme !== undefined && target.scheme !== origin.scheme) continue;
    if (origin.port !== undefined && target.port !== origin.port) continue;
    if (origin.domain !== undefined && target.domain !== origin.domain) {
      const domain = target.domain;
      if (
        domain !== undefined &&
        origin.domain.startsWith('*') &&
        (domain.endsWith(origin.domain.slice(1)) || domain === origin.domain.slice(2))
      ) {
        return true;
      }
      continue;
    }
    return true;
  }
  return false;
}

const DISALLOWED = DEFAULT_DISALLOWED_SOURCES.map(schemeDomainPort);
const stringField = (fields: Json | undefined, ...names: string[]) => {
  for (const name of names) if (typeof fields?.[name] === 'string') return fields[name] as string;
  return undefined;
};

/** blocked_uri and source_file of a report as the browser sent it (report-uri's `csp-report`, or report-to's body). */
export function cspSources(report: Json): { blockedUri: string | undefined; sourceFile: string | undefined } {
  const legacy = asObject(report['csp-report']);
  if (legacy) {
    return {
      blockedUri: stringField(legacy, 'blocked-uri', 'blocked_uri'),
      sourceFile: stringField(legacy, 'source-file', 'source_file'),
    };
  }
  const body = asObject(report.body);
  if (report.type === 'csp-violation' && body) {
    return { blockedUri: stringField(body, 'blockedURL'), sourceFile: stringField(body, 'sourceFile') };
  }
  return { blockedUri: undefined, sourceFile: undefined };
}

export const invalidCsp: InboundFilter = {
  id: 'invalid-csp',
  kinds: ['security'],
  keys: [],
  mayMatch: () => true,
  matches(report) {
    const { blockedUri, sourceFile } = cspSources(report);
    return matchesAnyOrigin(blockedUri, DISALLOWED) || matchesAnyOrigin(sourceFile, DISALLOWED);
  },
};
