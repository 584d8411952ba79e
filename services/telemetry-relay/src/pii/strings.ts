// How one rule changes one value, after Relay's processor.rs (apply_rule_to_value, apply_regex_to_chunks): a value is
// text and redactions; each rule searches the text left (a redaction reads as "\0"), then replaces either the whole
// value or the matched groups. Remarks name the rule and the replaced range of the *result*, never what was there.
import type { Pattern } from './pattern.ts';
import { NEVER_SCRUBBED } from './patterns.ts';

export interface StringRule {
  /** Relay's rule id, as written in `_meta` remarks and used as the metric's `rule` label. */
  id: string;
  /** value: the regex searches the value; key: only the key; keyvalue: the key, else the value (whole value goes). */
  on: 'value' | 'key' | 'keyvalue';
  /** Linear in the value's length (pattern.ts). */
  pattern: Pattern;
  /** The whole value, or the numbered group (0: the whole match). */
  replace: 'whole' | number;
  text: string;
}

/** A `_meta` remark as Relay writes it: [rule, "s", start, end] for a substitution, [rule, "x"] for a removal. */
export type Remark = [string, 's', number, number] | [string, 'x'];

type Chunk = { text: string; rule?: undefined } | { text: string; rule: string };

export interface StringResult {
  value: string;
  remarks: Remark[];
  /** Rule ids that changed the value (for the metric), one per application. */
  rules: string[];
}

const matchesKey = (rule: StringRule, key: string): boolean => rule.pattern.test(key);

/** A non-string value (number, array, object) under `key`: the first key rule that matches removes it. */
export function removingRule(rules: readonly StringRule[], key: string): string | undefined {
  for (const rule of rules) if (rule.on !== 'value' && matchesKey(rule, key)) return rule.id;
  return undefined;
}

/** The value after `rules` (applied in order), or undefined when none matched. */
export function scrubString(value: string, key: string, rules: readonly StringRule[]): StringResult | undefined {
  if (NEVER_SCRUBBED.has(value)) return undefined;
  let chunks: Chunk[] = [{ text: value }];
  const applied: string[] = [];
  for (const rule of rules) {
    const next = applyRule(chunks, key, rule);
    if (next !== chunks) {
      chunks = next;
      applied.push(rule.id);
    }
  }
  if (applied.length === 0) return undefined;
  const remarks: Remark[] = [];
  let out = '';
  for (const chunk of chunks) {
    if (chunk.rule !== undefined) remarks.push([chunk.rule, 's', out.length, out.length + chunk.text.length]);
    out += chunk.text;
  }
  return { value: out, remarks, rules: applied };
}

function applyRule(chunks: Chunk[], key: string, rule: StringRule): Chunk[] {
  const whole = (): Chunk[] => [{ text: rule.text, rule: rule.id }];
  if (rule.on !== 'value' && matchesKey(rule, key)) return whole();
  if (rule.on === 'key') return chunks;
  let search = '';
  let hasText = false;
  for (const chunk of chunks) {
    if (chunk.rule === undefined) {
      hasText = true;
      search += chunk.text.replaceAll('\0', '');
    } else search += '\0';
  }
  if (!hasText) return chunks;
  if (rule.replace === 'whole') return rule.pattern.test(search) ? whole() : chunks;

  const spans = rule.pattern.spans(search, rule.replace).filter(([start, end]) => end > start);
  if (spans.length === 0) return chunks;
  const redactions = chunks.filter((chunk) => chunk.rule !== undefined);
  let next = 0;
  const out: Chunk[] = [];
  const pushText = (text: string) => {
    const pieces = text.split('\0');
    pieces.forEach((piece, i) => {
      if (i > 0) {
        const redaction = redactions[next++];
        if (redaction) out.push(redaction);
      }
      if (piece !== '') out.push({ text: piece });
    });
  };
  let pos = 0;
  for (const [start, end] of spans) {
    pushText(search.slice(pos, start));
    next += search.slice(start, end).split('\0').length - 1; // redactions inside the span are replaced with it
    out.push({ text: rule.text, rule: rule.id });
    pos = end;
  }
  pushText(search.slice(pos));
  return out;
}

/** Relay's `len`: the original value's length in characters. */
export const charLength = (value: string): number => {
  let length = 0;
  for (const _ of value) length++;
  return length;
};
