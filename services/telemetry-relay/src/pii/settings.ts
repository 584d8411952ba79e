// Sentry's project settings (relay-pii legacy.rs DataScrubbingConfig) turned into rule lists the way Relay's
// convert.rs `to_pii_config` does: `@common:filter` (+ `@ip:replace`, + "strip-fields") on most string values,
// replace-only rules in the message, `@anything:filter` on session cookies, `@anything:remove` on known IP fields.
import {
  BEARER,
  CREDITCARD,
  EMAIL,
  escapeRegex,
  IBAN,
  IPV4,
  IPV6,
  PASSWORD_KEY,
  PEM_KEY,
  TOKEN_KEY,
  URL_PASSWORD,
  US_SSN,
  USER_PATH,
} from './patterns.ts';
import { ALWAYS, createPrescan, createTextCheck, type Prescan, TRIGGER_WORDS } from './prescan.ts';
import { parseSelector, type Selector } from './selector.ts';
import type { StringRule } from './strings.ts';

export interface ScrubSettings {
  /** SCRUB_DATA ("Data Scrubber"): off turns everything but IP scrubbing off. */
  scrubData: boolean;
  /** SCRUB_DEFAULTS ("Use Default Scrubbers"). */
  scrubDefaults: boolean;
  /** SCRUB_IP_ADDRESSES ("Prevent Storing of IP Addresses"). */
  scrubIpAddresses: boolean;
  /** SENSITIVE_FIELDS ("Additional Sensitive Fields"): substrings of keys (and values), case-insensitive. */
  sensitiveFields: readonly string[];
  /** SAFE_FIELDS ("Safe Fields"): Relay selectors the main rules skip. */
  safeFields: readonly string[];
  /** SCRUB_STRICT (ours): emails everywhere, user home paths, exception values. */
  strict: boolean;
}

export const DEFAULT_SCRUB_SETTINGS: ScrubSettings = {
  scrubData: true,
  scrubDefaults: true,
  scrubIpAddresses: false,
  sensitiveFields: [],
  safeFields: [],
  strict: false,
};

export interface CompiledScrub {
  /** The main rules (Relay's `($string || …) && !(ignored) && !(safe fields)` application). */
  fields: readonly StringRule[];
  /** logentry.formatted (and the legacy `message`): partial replacements only. */
  message: readonly StringRule[];
  /** Session/CSRF cookies by name (`@anything:filter`), when the defaults are on. */
  cookies: boolean;
  /** Remove user.ip_address, sdk.client_ip, request.env.REMOTE_ADDR whatever they hold (`@anything:remove`). */
  removeIpFields: boolean;
  strict: boolean;
  safe: readonly Selector[];
  /** A cheap test over an item's bytes: false proves none of the rules can match (see prescan.ts). */
  prescan: Prescan;
  /** The same for one key or string value; undefined when every value must see the rules (IP, strict). */
  mayMatch: ((text: string) => boolean) | undefined;
}

const rule = (
  id: string,
  on: StringRule['on'],
  source: string,
  replace: StringRule['replace'],
  text: string,
  i = false,
) => ({ id, on, regex: new RegExp(source, `gdu${i ? 'i' : ''}`), replace, text }) satisfies StringRule;

const FILTERED = '[Filtered]';

/** undefined: nothing to scrub at all (Relay: no PII config). */
export function compileScrub(settings: ScrubSettings): CompiledScrub | undefined {
  const defaults = settings.scrubData && settings.scrubDefaults;
  const fields: StringRule[] = [];
  const message: StringRule[] = [];
  if (defaults) {
    fields.push(
      rule('@creditcard:filter', 'value', CREDITCARD, 0, FILTERED),
      rule('@iban:filter', 'value', IBAN, 0, FILTERED),
      rule('@pemkey:filter', 'value', PEM_KEY, 1, FILTERED),
      rule('@urlauth:legacy', 'value', URL_PASSWORD, 2, FILTERED),
      // @userpath:filter is named in Relay's @common:filter but defined nowhere: Relay skips it, so do we.
      rule('@password:filter', 'value', BEARER, 0, FILTERED, true),
      rule('@password:filter', 'key', TOKEN_KEY, 'whole', FILTERED, true),
      rule('@password:filter', 'keyvalue', PASSWORD_KEY, 'whole', FILTERED, true),
      rule('@usssn:filter', 'value', US_SSN, 0, FILTERED),
    );
    message.push(
      rule('@email:replace', 'value', EMAIL, 0, '[email]'),
      rule('@creditcard:replace', 'value', CREDITCARD, 0, '[creditcard]'),
      rule('@iban:replace', 'value', IBAN, 0, '[iban]'),
      rule('@usssn:replace', 'value', US_SSN, 0, '[us-ssn]'),
      rule('@bearer', 'value', BEARER, 0, 'Bearer [token]', true),
    );
  }
  if (settings.scrubIpAddresses) {
    fields.push(rule('@ip:replace', 'value', IPV4, 0, '[ip]'), rule('@ip:replace', 'value', IPV6, 1, '[ip]'));
  }
  const sensitive = settings.sensitiveFields.map((f) => f.trim()).filter((f) => f !== '');
  if (settings.scrubData && sensitive.length > 0) {
    const pattern = sensitive.map(escapeRegex).join('|');
    fields.push(rule('strip-fields', 'keyvalue', pattern, 'whole', FILTERED, true));
  }
  const strict = settings.scrubData && settings.strict;
  if (strict) {
    fields.push(
      rule('@email:replace', 'value', EMAIL, 0, '[email]'),
      rule('@userpath:replace', 'value', USER_PATH, 1, '[user]', true),
    );
    message.push(rule('@userpath:replace', 'value', USER_PATH, 1, '[user]', true));
  }
  if (fields.length === 0 && message.length === 0 && !settings.scrubIpAddresses) return undefined;
  return {
    fields,
    message,
    cookies: defaults,
    removeIpFields: settings.scrubIpAddresses,
    strict,
    safe: settings.safeFields
      .map((f) => f.trim())
      .filter((f) => f !== '')
      .map(parseSelector),
    // IP addresses and the strict rules match too much for a byte scan to rule out: every item is walked.
    prescan: settings.scrubIpAddresses || strict ? ALWAYS : createPrescan([...TRIGGER_WORDS, ...sensitive]),
    mayMatch: settings.scrubIpAddresses || strict ? undefined : createTextCheck([...TRIGGER_WORDS, ...sensitive]),
  };
}
