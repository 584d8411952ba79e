// Relay's patterns (getsentry/relay relay-pii/src/regexes.rs and builtin.rs), translated to JavaScript regexes.
// Flags: `u` so case-insensitive keys fold as Rust's Unicode-aware `(?i)` does; `g` where a rule replaces matches.

const IBAN_COUNTRIES =
  'AT|AD|AE|AL|AZ|BA|BE|BG|BH|BR|BY|CH|CR|CY|CZ|DE|DK|DO|EE|EG|ES|FI|FO|FR|GB|GE|GI|GL|GR|GT|HR|HU|IE|IL|IQ|IS|IT|JO|KW|KZ|LB|LC|LI|LT|LU|LV|LY|MC|MD|ME|MK|MR|MT|MU|NL|NO|PK|PL|PS|PT|QA|RO|RU|RS|SA|SC|SE|SI|SK|SM|ST|SV|TL|TN|TR|UA|VA|VG|XK|DZ|AO|BJ|BF|BI|CV|CM|CF|TD|KM|CG|CI|DJ|GQ|GA|GW|HN|IR|MG|ML|MA|MZ|NI|NE|SN|TG';

/** Vendor prefix and length only: Relay has no Luhn check (its comment: "we do not want to strip any number"). */
export const CREDITCARD = String.raw`\b((?:3[47]\d|4\d{3}|5[1-5]\d\d|65\d\d|6011)(?:[-\s]?\d){12})\b`;
export const IBAN = String.raw`\b(?:${IBAN_COUNTRIES})\d{2}[a-zA-Z0-9]{11,29}\b`;
/** The BEGIN/END lines stay; group 1, the key's body, goes. */
export const PEM_KEY = String.raw`(?:-----BEGIN[A-Z ]+(?:PRIVATE|PUBLIC) KEY-----[\t ]*\r?\n?)([\s\S]+?)(?:\r?\n?-----END[A-Z ]+(?:PRIVATE|PUBLIC) KEY-----)`;
/** `@urlauth:legacy`, Sentry's old URL_PASSWORD_RE: group 2 (the password) goes, the user stays. */
export const URL_PASSWORD = String.raw`\b((?:[a-z0-9]+:)?\/\/[a-zA-Z0-9%_.-]+:)([a-zA-Z0-9%_.-]+)@`;
export const US_SSN = String.raw`\b([0-9]{3}-[0-9]{2}-[0-9]{4})\b`;
export const BEARER = String.raw`\b(Bearer\s+)(\S+)`;
export const TOKEN_KEY = 'token';
/** Matched against keys and, when the key does not match, against string values (then the whole value goes). */
export const PASSWORD_KEY = String.raw`password|secret|passwd|api[-_]key|apikey|auth|credentials|mysql_pwd|privatekey|private[-_]key|token\S*[:=]|^otp$|^two[-_]factor$`;
export const EMAIL = String.raw`\b[a-zA-Z0-9.!#$%&'*+/=?^_\x60{|}~-]+@[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*\.[a-zA-Z]{2,}\b`;
/** `@userpath`: group 1, the user's name in a home path. */
export const USER_PATH = String.raw`(?:(?:\b(?:[a-zA-Z]:[\\/])?(?:users|home|documents and settings|[^/\\]+[/\\]profiles)[\\/])|(?:\/(?:home|users)\/))([^/\\\r\n\x00]+)`;

const V4S = '(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)';
const V4 = `${V4S}\\.${V4S}\\.${V4S}\\.${V4S}`;
const V6S = '[0-9a-fA-F]{1,4}';
export const IPV4 = `\\b${V4}\\b`;
/** Group 1 is the address; the surrounding punctuation or space stays. */
export const IPV6 =
  `(?:\\s|[!-/:-@[-\`{-~]|^)(` +
  `(?:${V6S}:){7}${V6S}|(?:${V6S}:){1,7}:|(?:${V6S}:){1,6}:${V6S}|(?:${V6S}:){1,5}(?::${V6S}){1,2}|` +
  `(?:${V6S}:){1,4}(?::${V6S}){1,3}|(?:${V6S}:){1,3}(?::${V6S}){1,4}|(?:${V6S}:){1,2}(?::${V6S}){1,5}|` +
  `${V6S}:(?:(?::${V6S}){1,6})|:(?:(?::${V6S}){1,7}|:)|fe80:(?::${V6S}){0,4}%[0-9a-zA-Z]+|` +
  `::(?:ffff(?::0{1,4})?:)?${V4}|(?:${V6S}:){1,4}:${V4})(?=\\s|[!-/:-@[-\`{-~]|$)`;

/** Sentry's session and CSRF cookie names (relay-pii convert.rs SENSITIVE_COOKIES): always `[Filtered]`. */
export const SENSITIVE_COOKIES: ReadonlySet<string> = new Set([
  'sentrysid',
  'sudo',
  'su',
  'session',
  '__session',
  'sessionid',
  'user_session',
  'symfony',
  'phpsessid',
  'fasthttpsessionid',
  'mysession',
  'irissessionid',
  '_vercel_jwt',
  'csrf',
  'xsrf',
  '_xsrf',
  '_csrf',
  'csrf-token',
  'csrf_token',
  'xsrf-token',
  'xsrf_token',
  'fastcsrf',
  '_iris_csrf',
]);

/** Strings Relay never scrubs (processor.rs process_string). */
export const NEVER_SCRUBBED: ReadonlySet<string> = new Set(['', 'true', 'false', 'null', 'undefined']);

/** For a `u` regex, which refuses `\-` outside a class: a field like `session-id` would stop the relay at startup. */
export const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
