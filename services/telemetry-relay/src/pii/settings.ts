// Sentry's project settings (relay-pii legacy.rs DataScrubbingConfig) turned into rule lists the way Relay's
// convert.rs `to_pii_config` does: `@common:filter` (+ `@ip:replace`, + "strip-fields") on most string values,
// replace-only rules in the message, `@anything:filter` on session cookies, `@anything:remove` on known IP fields.

import { emailPattern, passwordKeyPattern, pemPattern } from './matchers.ts';
import { type Pattern, regexPattern } from './pattern.ts';
import { BEARER, CREDITCARD, escapeRegex, IBAN, IPV4, IPV6, TOKEN_KEY, URL_PASSWORD, US_SSN } from './patterns.ts';
import { ALWAYS, createPrescan, createTextCheck, type Prescan, TRIGGER_WORDS } from './prescan.ts';
import { parseSelector, type Selector } from './selector.ts';
import type { StringRule } from './strings.ts';
import { userPathPattern } from './user-path.ts';

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

const rule = (id: string, on: StringRule['on'], pattern: Pattern, replace: StringRule['replace'], text: string) =>
  ({ id, on, pattern, replace, text }) satisfies StringRule;

/** Relay's regexes that are linear on V8 as they are; `i` for case-insensitive ones (decision 045 for the others). */
const re = (name: string, source: string, i = false) => regexPattern(name, source, i ? 'ui' : 'u');
const PATTERNS = {
  CREDITCARD: re('CREDITCARD', CREDITCARD),
  IBAN: re('IBAN', IBAN),
  URL_PASSWORD: re('URL_PASSWORD', URL_PASSWORD),
  BEARER: re('BEARER', BEARER, true),
  TOKEN_KEY: re('TOKEN_KEY', TOKEN_KEY, true),
  US_SSN: re('US_SSN', US_SSN),
  IPV4: re('IPV4', IPV4),
  IPV6: re('IPV6', IPV6),
};

const FILTERED = '[Filtered]';

/** undefined: nothing to scrub at all (Relay: no PII config). */
export function compileScrub(settings: ScrubSettings): CompiledScrub | undefined {
  const defaults = settings.scrubData && settings.scrubDefaults;
  const fields: StringRule[] = [];
  const message: StringRule[] = [];
  if (defaults) {
    fields.push(
      rule('@creditcard:filter', 'value', PATTERNS.CREDITCARD, 0, FILTERED),
      rule('@iban:filter', 'value', PATTERNS.IBAN, 0, FILTERED),
      rule('@pemkey:filter', 'value', pemPattern, 1, FILTERED),
      rule('@urlauth:legacy', 'value', PATTERNS.URL_PASSWORD, 2, FILTERED),
      // @userpath:filter is named in Relay's @common:filter but defined nowhere: Relay skips it, so do we.
      rule('@password:filter', 'value', PATTERNS.BEARER, 0, FILTERED),
      rule('@password:filter', 'key', PATTERNS.TOKEN_KEY, 'whole', FILTERED),
      rule('@password:filter', 'keyvalue', passwordKeyPattern, 'whole', FILTERED),
      rule('@usssn:filter', 'value', PATTERNS.US_SSN, 0, FILTERED),
    );
    message.push(
      rule('@email:replace', 'value', emailPattern, 0, '[email]'),
      rule('@creditcard:replace', 'value', PATTERNS.CREDITCARD, 0, '[creditcard]'),
      rule('@iban:replace', 'value', PATTERNS.IBAN, 0, '[iban]'),
      rule('@usssn:replace', 'value', PATTERNS.US_SSN, 0, '[us-ssn]'),
      rule('@bearer', 'value', PATTERNS.BEARER, 0, 'Bearer [token]'),
    );
  }
  if (settings.scrubIpAddresses) {
    fields.push(
      rule('@ip:replace', 'value', PATTERNS.IPV4, 0, '[ip]'),
      rule('@ip:replace', 'value', PATTERNS.IPV6, 1, '[ip]'),
    );
  }
  const sensitive = settings.sensitiveFields.map((f) => f.trim()).filter((f) => f !== '');
  if (settings.scrubData && sensitive.length > 0) {
    const pattern = sensitive.map(escapeRegex).join('|');
    fields.push(rule('strip-fields', 'keyvalue', re('SENSITIVE_FIELDS', pattern, true), 'whole', FILTERED));
  }
  const strict = settings.scrubData && settings.strict;
  if (strict) {
    fields.push(
      rule('@email:replace', 'value', emailPattern, 0, '[email]'),
      rule('@userpath:replace', 'value', userPathPattern, 1, '[user]'),
    );
    message.push(rule('@userpath:replace', 'value', userPathPattern, 1, '[user]'));
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
