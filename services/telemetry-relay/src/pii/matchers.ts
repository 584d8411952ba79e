// The rules' patterns as the scrubber runs them. Most are Relay's regexes as they are (patterns.ts); four backtrack
// super-linearly on V8 (Relay's Rust `regex` is linear) and are matched here by hand, finding exactly the spans the
// regex finds (test/pipeline/linear-matchers.test.ts proves each against its regex on generated input; decision 045).
import { isAsciiAlnum, isAsciiLetter } from './chars.ts';
import { type Find, type Pattern, scanner } from './pattern.ts';
import { PASSWORD_KEY } from './patterns.ts';

const code = (text: string, i: number) => (i >= 0 && i < text.length ? text.charCodeAt(i) : -1);
const between = (c: number, low: string, high: string) => c >= low.charCodeAt(0) && c <= high.charCodeAt(0);
const isLetter = isAsciiLetter;
const isAlnum = isAsciiAlnum;
/** `\w` (without `i`): `\b` looks at it. */
const isWord = (c: number) => isAlnum(c) || c === 0x5f;
const LOCAL_EXTRA = new Set([..."!#$%&'*+/=?^_`{|}~-."].map((c) => c.charCodeAt(0)));
const isLocal = (c: number) => isAlnum(c) || LOCAL_EXTRA.has(c);
const isDomain = (c: number) => isAlnum(c) || c === 0x2d;

/**
 * EMAIL. The local part is the run of local characters right before an "@", so each "@" is looked at once; the
 * match starts at the run's first `\b` and ends where the regex's backtracking ends it: after the letters that open
 * the last label that can be a top-level domain (two letters or more, then no word character).
 */
const findEmail =
  (text: string): Find =>
  (from) => {
    for (let at = text.indexOf('@', from); at !== -1; at = text.indexOf('@', at + 1)) {
      let start = at;
      while (start > from && isLocal(code(text, start - 1))) start--;
      if (start === at) continue;
      const end = domainEnd(text, at + 1);
      if (end < 0) continue;
      for (let s = start; s < at; s++) if (isWord(code(text, s - 1)) !== isWord(code(text, s))) return [s, end, end];
    }
    return undefined;
  };

/**
 * The end of `[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*\.[a-zA-Z]{2,}\b` from `start`, or -1. The regex takes every label,
 * then gives them back one at a time until one opens with two letters or more and no word character after them: the
 * last such label after the first.
 */
function domainEnd(text: string, start: number): number {
  let i = start;
  while (isDomain(code(text, i))) i++;
  if (i === start) return -1;
  let end = -1;
  while (code(text, i) === 0x2e && isDomain(code(text, i + 1))) {
    const label = ++i;
    while (isLetter(code(text, i))) i++;
    if (i - label >= 2 && !isWord(code(text, i))) end = i;
    while (isDomain(code(text, i))) i++;
  }
  return end;
}

const BEGIN = '-----BEGIN';
const END = '-----END';

/** After `-----BEGIN` or `-----END` at `at`: the end of `[A-Z ]+(?:PRIVATE|PUBLIC) KEY-----`, or -1. */
function keyLineEnd(text: string, at: number, marker: number): number {
  const run = at + marker;
  let end = run;
  for (let c = code(text, end); between(c, 'A', 'Z') || c === 0x20; c = code(text, ++end));
  if (!text.startsWith('-----', end)) return -1;
  for (const kind of ['PRIVATE KEY', 'PUBLIC KEY']) {
    if (end - kind.length > run && text.startsWith(kind, end - kind.length)) return end + 5;
  }
  return -1;
}

/** Where a body may end (`\r?\n?-----END…KEY-----` follows), ascending, with the end of that END line. */
function bodyEnds(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let at = text.indexOf(END); at !== -1; at = text.indexOf(END, at + END.length)) {
    const end = keyLineEnd(text, at, END.length);
    if (end < 0) continue;
    if (text[at - 2] === '\r' && text[at - 1] === '\n') out.push([at - 2, end]);
    if (text[at - 1] === '\n' || text[at - 1] === '\r') out.push([at - 1, end]);
    out.push([at, end]);
  }
  return out;
}

/**
 * PEM_KEY: the regex's lazy body searched from every BEGIN line to the end of the text; the body ends are found
 * once instead, and each BEGIN line tries its starts in the regex's backtracking order (the most whitespace first).
 */
function findPem(text: string): Find {
  const ends = bodyEnds(text);
  /** The first body end at or after `after` (binary search). */
  const firstEnd = (after: number) => {
    let low = 0;
    let high = ends.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((ends[mid] as [number, number])[0] < after) low = mid + 1;
      else high = mid;
    }
    return ends[low];
  };
  return (from) => {
    for (let at = text.indexOf(BEGIN, from); at !== -1; at = text.indexOf(BEGIN, at + 1)) {
      const line = keyLineEnd(text, at, BEGIN.length);
      if (line < 0) continue;
      let blank = line;
      while (text[blank] === '\t' || text[blank] === ' ') blank++;
      // `[\t ]*\r?\n?` gives back the newline, then the return, then one blank at a time.
      const starts: number[] = [];
      if (text[blank] === '\r') starts.push(...(text[blank + 1] === '\n' ? [blank + 2] : []), blank + 1);
      else if (text[blank] === '\n') starts.push(blank + 1);
      for (let s = blank; s >= line; s--) starts.push(s);
      for (const start of starts) {
        const end = firstEnd(start + 1);
        if (end) return [start, end[0], end[1]];
      }
    }
    return undefined;
  };
}

const TOKEN = /token/giu;
const TOKEN_STOP = /[\s:=]/g;

/** `token\S*[:=]`: after each "token", the first whitespace or `:`/`=` decides; a whitespace skips past it. */
function tokenAssigned(text: string): boolean {
  for (let from = 0; ; ) {
    TOKEN.lastIndex = from;
    const token = TOKEN.exec(text);
    if (!token) return false;
    TOKEN_STOP.lastIndex = token.index + token[0].length;
    const stop = TOKEN_STOP.exec(text);
    if (!stop) return false;
    if (stop[0] === ':' || stop[0] === '=') return true;
    from = stop.index + 1;
  }
}

const TOKEN_ALTERNATIVE = String.raw`token\S*[:=]|`;
if (!PASSWORD_KEY.includes(TOKEN_ALTERNATIVE)) throw new Error('PASSWORD_KEY changed: update passwordKeyPattern');
const PASSWORD_KEY_REST = new RegExp(PASSWORD_KEY.replace(TOKEN_ALTERNATIVE, ''), 'iu');

/** PASSWORD_KEY (`whole` rules only test it): the key words by regex, `token\S*[:=]` by hand. */
export const passwordKeyPattern: Pattern = {
  name: 'PASSWORD_KEY',
  test: (text) => PASSWORD_KEY_REST.test(text) || tokenAssigned(text),
  spans() {
    throw new Error('PASSWORD_KEY replaces whole values');
  },
};

export const emailPattern = scanner('EMAIL', 0, findEmail);
export const pemPattern = scanner('PEM_KEY', 1, findPem);
