// USER_PATH (patterns.ts, SCRUB_STRICT's `@userpath:replace`) by hand: its `[^/\\]+[/\\]profiles` alternative reads
// from every word boundary to the next slash, quadratic in a text of words without one (decision 045). Here the next
// slash is found once per stretch, and each start tries the regex's alternatives in its order.
import { isAsciiAlnum } from './chars.ts';
import { type Find, scanner } from './pattern.ts';

// With `i` and `u`, as the rule compiles USER_PATH: ſ (U+017F) and K (U+212A) fold into ASCII letters.
const DRIVE = /[a-zA-Z]:[\\/]/iuy;
const NAMED = /(?:users|home|documents and settings)[\\/]/iuy;
const PROFILES = /[/\\]profiles[\\/]/iuy;
const ROOTED = /\/(?:home|users)\//iuy;
/** In every match (each alternative ends with one of these words and a slash): most values hold none. */
const ANY_NAME = /(?:users|home|documents and settings|profiles)[\\/]/iu;

const isSlash = (c: number) => c === 0x2f || c === 0x5c;
/** `\w` under `i` and `u`: `\b` looks at it. */
const isWord = (c: number) => isAsciiAlnum(c) || c === 0x5f || c === 0x17f || c === 0x212a;
/** `[^/\\\r\n\x00]`: the user's name. */
const isName = (c: number) => c >= 0 && !isSlash(c) && c !== 0x0d && c !== 0x0a && c !== 0;

const at = (regex: RegExp, text: string, index: number): number => {
  regex.lastIndex = index;
  return regex.test(text) ? regex.lastIndex : -1;
};

function findUserPath(text: string): Find {
  if (!ANY_NAME.test(text)) return () => undefined;
  const c = (i: number) => (i >= 0 && i < text.length ? text.charCodeAt(i) : -1);
  const nameEnd = (start: number) => {
    let end = start;
    while (isName(c(end))) end++;
    return end;
  };
  // The first slash at or after a position, remembered per caller: each asks with positions that only grow.
  const slashFinder = () => {
    let asked = -1;
    let found = -1;
    return (from: number) => {
      if (from < asked || from > found) {
        found = from;
        while (found < text.length && !isSlash(c(found))) found++;
      }
      asked = from;
      return found;
    };
  };
  const slashAfterDrive = slashFinder();
  const slashHere = slashFinder();
  /** `(?:users|home|documents and settings|[^/\\]+[/\\]profiles)[\\/]` then the name, from `from`. */
  const named = (from: number, nextSlash: (from: number) => number): [number, number] | undefined => {
    const afterNamed = at(NAMED, text, from);
    if (afterNamed >= 0 && nameEnd(afterNamed) > afterNamed) return [afterNamed, nameEnd(afterNamed)];
    const slash = nextSlash(from);
    const afterProfiles = slash > from ? at(PROFILES, text, slash) : -1;
    if (afterProfiles >= 0 && nameEnd(afterProfiles) > afterProfiles) return [afterProfiles, nameEnd(afterProfiles)];
    return undefined;
  };
  return (from) => {
    for (let start = from; start < text.length; start++) {
      let found: [number, number] | undefined;
      if (isWord(c(start - 1)) !== isWord(c(start))) {
        const afterDrive = at(DRIVE, text, start);
        if (afterDrive >= 0) found = named(afterDrive, slashAfterDrive);
        found ??= named(start, slashHere);
      }
      if (!found) {
        const afterRoot = at(ROOTED, text, start);
        if (afterRoot >= 0 && nameEnd(afterRoot) > afterRoot) found = [afterRoot, nameEnd(afterRoot)];
      }
      if (found) return [found[0], found[1], found[1]];
    }
    return undefined;
  };
}

export const userPathPattern = scanner('USER_PATH', 1, findUserPath);
