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
import { parseSelector, type Selector } from './selector.ts';
import type { StringRule } from './strings.ts';

// Sentry's project settings (relay-pii legacy.rs DataScrubbingConfig) turned into rule lists the way Relay's
// convert.rs `to_pii_config` does: `@common:filter` (+ `@ip:replace`, + "strip-fields") on most string values,
// replace-only rules in the message, `@anything:filter` on session cookies, `@anything:remove` on known IP fields.

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
  prescan: RegExp;
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
  const triggers: string[] = [];
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
    triggers.push(
      CREDITCARD,
      IBAN,
      '-----BEGIN',
      '\\/\\/[a-zA-Z0-9%_.-]+:[a-zA-Z0-9%_.-]+@',
      '(?i:bearer)',
      '(?i:token|password|secret|passwd|api[-_]?key|auth|credentials|mysql_pwd|private[-_]?key|otp|two[-_]factor|cookie)',
      US_SSN,
      EMAIL, // in the message
    );
  }
  if (settings.scrubIpAddresses) {
    fields.push(rule('@ip:replace', 'value', IPV4, 0, '[ip]'), rule('@ip:replace', 'value', IPV6, 1, '[ip]'));
    triggers.push(
      '\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}',
      '[0-9a-fA-F]{0,4}:[0-9a-fA-F]{0,4}:',
      '(?i:ip_address|client_ip|remote_addr)',
    );
  }
  const sensitive = settings.sensitiveFields.map((f) => f.trim()).filter((f) => f !== '');
  if (settings.scrubData && sensitive.length > 0) {
    const pattern = sensitive.map(escapeRegex).join('|');
    fields.push(rule('strip-fields', 'keyvalue', pattern, 'whole', FILTERED, true));
    triggers.push(`(?i:${pattern})`);
  }
  const strict = settings.scrubData && settings.strict;
  if (strict) {
    fields.push(
      rule('@email:replace', 'value', EMAIL, 0, '[email]'),
      rule('@userpath:replace', 'value', USER_PATH, 1, '[user]', true),
    );
    message.push(rule('@userpath:replace', 'value', USER_PATH, 1, '[user]', true));
    triggers.push(EMAIL, '(?i:users|home|documents and settings|profiles)', '"exception"');
  }
  if (fields.length === 0 && message.length === 0 && !settings.scrubIpAddresses) return undefined;
  // A JSON string may spell any character as \uXXXX: an escaped ASCII letter could hide a trigger word, so any such
  // escape walks the item (JSON.stringify, and so every SDK, never writes one).
  triggers.push('\\\\u00[2-7][0-9a-fA-F]');
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
    prescan: new RegExp(triggers.map((t) => `(?:${t})`).join('|'), 'u'),
  };
}
