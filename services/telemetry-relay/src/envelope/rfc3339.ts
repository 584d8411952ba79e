// The timestamp syntax Relay accepts for `sent_at`, so the relay refuses what Sentry would refuse.

/**
 * Whether Sentry's Relay reads `text` as a timestamp: Relay deserializes `sent_at` as chrono's `DateTime<Utc>`, whose
 * parser takes a relaxed RFC 3339 — date and time joined by `T`, `t` or a space, one- or two-digit fields, spaces
 * between components, fractional seconds of any length, and a time zone that is required: `Z`, `z`, `UTC` (any case)
 * or an offset with or without its colon (a U+2212 minus too). Values must exist on the calendar; second 60 (a leap
 * second) is allowed. A timestamp without a time zone, or a number, is refused.
 */
export function isRelayTimestamp(text: string): boolean {
  const iso = ISO.exec(text);
  if (iso) return isValid(Number(iso[1]), iso[2], iso[3], iso[4], iso[5], iso[6], undefined);
  const match = RELAXED.exec(text);
  if (!match) return false;
  const year = Number(match[2] ?? match[3]) * (match[1] === '-' ? -1 : 1);
  return isValid(year, match[4], match[5], match[6], match[7], match[8], match[9]);
}

/** What SDKs send (Date#toISOString and the like): tried first, as it is several times faster than RELAXED. */
const ISO = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.\d{1,9})?Z$/;
// Rust's char::is_whitespace (chrono trims it between components), as a character class.
const WS = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*';
const RELAXED = new RegExp(
  `^${WS}(?:([+-])(\\d+)|(\\d{1,4}))${WS}-${WS}(\\d{1,2})${WS}-${WS}(\\d{1,2})[Tt ]${WS}(\\d{1,2})${WS}:${WS}(\\d{1,2})${WS}:${WS}(\\d{1,2})(?:\\.\\d+)?${WS}(?:[Zz]|[Uu][Tt][Cc]|[+\\-\\u2212](\\d\\d)[:\\s]*[0-5]\\d)${WS}$`,
);
/** chrono's NaiveDate range. */
const MAX_YEAR = 262_143;

function isValid(
  year: number,
  month: string | undefined,
  day: string | undefined,
  hour: string | undefined,
  minute: string | undefined,
  second: string | undefined,
  offsetHours: string | undefined,
): boolean {
  const m = Number(month);
  const d = Number(day);
  return (
    Math.abs(year) <= MAX_YEAR &&
    m >= 1 &&
    m <= 12 &&
    d >= 1 &&
    d <= daysInMonth(year, m) &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second) <= 60 &&
    (offsetHours === undefined || Number(offsetHours) <= 23)
  );
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
