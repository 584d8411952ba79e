// What the spike shield counts as "the same error": exception type + message + top in-app frame, with the parts
// that differ between occurrences of one bug (ids, addresses, counts) replaced, so a loop throwing
// "item 41 not found", "item 42 not found"… is one fingerprint, and a bundle's hashed chunk names do not split it.

/** Longest text of each part kept: a fingerprint stays small whatever the event carries. */
export const MAX_PART_CHARS = 256;

const UUID = /[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}/gi;
/** 0x-prefixed, or a run of 6+ hex digits holding a digit (a hash, an address; "deadline" stays a word). */
const HEX = /\b0x[0-9a-f]+\b|\b(?=[0-9a-f]*\d)[0-9a-f]{6,}\b/gi;
const NUMBER = /\d+/g;

/**
 * `text` with UUIDs, hex runs and numbers replaced by one placeholder holding no digit: one placeholder, because a
 * bug may put an id that is sometimes all digits and sometimes not into the same place.
 */
export function normalizeText(text: string): string {
  return text
    .slice(0, MAX_PART_CHARS * 4)
    .replace(UUID, '#')
    .replace(HEX, '#')
    .replace(NUMBER, '#')
    .slice(0, MAX_PART_CHARS);
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The fingerprint of an error event, or undefined when it has neither an exception nor a message. */
export function errorFingerprint(event: unknown): string | undefined {
  if (!isObject(event)) return undefined;
  const values = isObject(event.exception) ? event.exception.values : undefined;
  // The last exception is the one thrown (linked errors come first), as Sentry's grouping reads it.
  const exception = Array.isArray(values) ? values.at(-1) : undefined;
  if (isObject(exception)) {
    const frame = topFrame(isObject(exception.stacktrace) ? exception.stacktrace.frames : undefined);
    return [normalizeText(text(exception.type)), normalizeText(text(exception.value)), frame].join('\n');
  }
  const logentry = isObject(event.logentry) ? event.logentry : undefined;
  const message = text(logentry?.message) || text(logentry?.formatted) || text(event.message);
  return message === '' ? undefined : ['', normalizeText(message), ''].join('\n');
}

/** The innermost in-app frame (frames run outermost first), else the innermost frame: module or file, function. */
function topFrame(frames: unknown): string {
  if (!Array.isArray(frames) || frames.length === 0) return '';
  let chosen: unknown;
  for (let i = frames.length - 1; i >= 0; i--) {
    const frame = frames[i];
    if (isObject(frame) && frame.in_app === true) {
      chosen = frame;
      break;
    }
  }
  chosen ??= frames.at(-1);
  if (!isObject(chosen)) return '';
  const where = text(chosen.module) || text(chosen.filename).split(/[?#]/)[0] || text(chosen.abs_path);
  return `${normalizeText(where ?? '')} ${normalizeText(text(chosen.function))}`;
}
