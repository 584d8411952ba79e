// A byte search that rules out most payloads before any JSON is parsed for the ignore rules.
import { Buffer } from 'node:buffer';
import type { IgnoreRule } from './rules.ts';

/** True when JSON could carry `literal` only escaped (a quote, backslash, slash or control character). */
const unsearchable = (literal: string) =>
  [...literal].some((char) => char === '"' || char === '\\' || char === '/' || char.charCodeAt(0) < 0x20);
const UNICODE_ESCAPE = Buffer.from('\\u');

/**
 * A byte-level test that says whether a JSON event payload *may* be matched by one of `rules`, so the relay parses
 * only those events (most events contain none of the rules' literals, and parsing an event costs more than the rest
 * of the relay's work on it).
 *
 * Exact, never a false negative: a matched text contains one of the rule's literals, and JSON carries such a string
 * either verbatim or with `\uXXXX` escapes (the literals hold nothing else JSON escapes); a payload with any `\u`
 * escape is therefore always a candidate. Node-only (the SDKs import the package's main entry, not this one).
 */
export function createPrefilter(rules: readonly IgnoreRule[]): (payload: Uint8Array) => boolean {
  const needles: Buffer[] = [];
  for (const rule of rules) {
    if (rule.pattern.flags.includes('i')) {
      throw new Error(`rule ${rule.id}: case-insensitive patterns cannot be prefiltered by literal`);
    }
    if (rule.literals.length === 0) throw new Error(`rule ${rule.id} has no literals`);
    for (const literal of rule.literals) {
      if (literal === '' || unsearchable(literal)) {
        throw new Error(`rule ${rule.id}: literal ${JSON.stringify(literal)} cannot be searched for in JSON bytes`);
      }
      needles.push(Buffer.from(literal, 'utf8'));
    }
  }
  if (needles.length === 0) return () => false;
  needles.push(UNICODE_ESCAPE);
  return (payload) => {
    const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.length);
    for (const needle of needles) {
      if (bytes.includes(needle)) return true;
    }
    return false;
  };
}
