// The one byte scan the stages share (pipeline/item-scan.ts) against what each stage searched before: `includes`
// for a word in its own case, `/word/i` for the prescan's key words, on the latin1 decode. Seeded random payloads
// carry every stage's words in mixed case, cut short and at the payload's edges; each group's bit must be the
// oracle's answer, and each stage's gate must answer alike with a shared plan and with its own.

import { ignoreRules } from '@app/telemetry-rules';
import { createPrefilter } from '@app/telemetry-rules/prefilter';
import { nearMisses, type SeededRandom, seededRandom } from '@app/test-kit';
import { describe, expect, it } from 'vitest';
import { createItem } from '../../src/envelope/serialize.ts';
import { foundWords, type TableWord, wordTable } from '../../src/pii/byte-scan.ts';
import { createPrescan, TRIGGER_WORDS } from '../../src/pii/prescan.ts';
import { createRulePrefilter } from '../../src/pipeline/filter.ts';
import { createGate } from '../../src/pipeline/inbound-filters/gate.ts';
import { DEFAULT_FILTER_IDS, enabledFilters } from '../../src/pipeline/inbound-filters/settings.ts';
import { ScanPlan } from '../../src/pipeline/item-scan.ts';
import { ItemTexts } from '../../src/pipeline/item-text.ts';

type Random = SeededRandom;

const NEEDLES = enabledFilters({ ids: [...DEFAULT_FILTER_IDS], errorMessages: [], releases: [] }).flatMap(
  (filter) => filter.needles ?? [],
);
const LITERALS = ignoreRules.flatMap((rule) => rule.literals);
/** Bit 1: the prescan's key words (any case); 2: the gate's needles, 4: the rules' literals, 8: anchors (exact). */
const GROUPS: TableWord[] = [
  ...TRIGGER_WORDS.map((text) => ({ text, bit: 1 })),
  ...NEEDLES.map((text) => ({ text, bit: 2, exact: true })),
  ...LITERALS.map((text) => ({ text, bit: 4, exact: true })),
  ...['-----BEGIN', '\\u00'].map((text) => ({ text, bit: 8, exact: true })),
];
const WORDS = GROUPS.map((word) => word.text);
const escaped = (word: string) => word.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
const ORACLES = GROUPS.map(({ text, bit, exact }) => ({
  bit: bit as number,
  test: exact ? (s: string) => s.includes(text) : (s: string) => new RegExp(escaped(text), 'i').test(s),
}));
const oracle = (bytes: Buffer) => {
  const text = bytes.toString('latin1');
  return ORACLES.reduce((bits, { bit, test }) => (test(text) ? bits | bit : bits), 0);
};

function fragment(r: Random): string {
  const word = r.pick(WORDS);
  const cut = r.next(word.length);
  const flip = (c: string) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase());
  return r.pick([
    word,
    word,
    [...word].map((c) => (r.next(2) === 0 ? flip(c) : c)).join(''),
    word.slice(0, cut) + flip(word[cut] as string) + word.slice(cut + 1), // one letter in the other case
    ...nearMisses(word, cut),
  ]);
}

const FILLER = [
  '{"',
  '":"',
  '","',
  '"}',
  ',',
  ' ',
  '\\n',
  'a',
  'Q',
  '7',
  '0',
  '-',
  '/',
  'é',
  'k.',
  '078-05-1120',
  'DE8937040044053',
];
function payload(r: Random): Buffer {
  const parts: string[] = [];
  for (let i = r.next(10); i >= 0; i--)
    parts.push(r.next(2) === 0 ? fragment(r) : r.pick(FILLER).repeat(1 + r.next(4)));
  return Buffer.from(parts.join(''));
}

describe('the shared byte scan', () => {
  it("sets each group's bit exactly when the group's oracle finds a word, on 30000 random payloads", () => {
    const table = wordTable(GROUPS);
    const r = seededRandom(28);
    const seen = new Map<number, number>();
    for (let i = 0; i < 30_000; i++) {
      const bytes = payload(r);
      const expected = oracle(bytes);
      const found = foundWords(bytes, table);
      if (found !== expected) expect.fail(`bits ${found}, oracle ${expected}: ${JSON.stringify(bytes.toString())}`);
      for (const bit of [1, 2, 4, 8]) if (expected & bit) seen.set(bit, (seen.get(bit) ?? 0) + 1);
    }
    // Every group is found often, and missed often, so agreement means something.
    for (const bit of [1, 2, 4, 8]) expect(seen.get(bit)).toBeGreaterThan(1000);
    for (const bit of [1, 2, 4, 8]) expect(seen.get(bit)).toBeLessThan(27_000);
  });

  it('finds an exact word at every offset, and not in another case', () => {
    const table = wordTable(GROUPS);
    for (const { text, bit, exact } of GROUPS) {
      if (!exact) continue;
      for (let before = 0; before < 8; before++) {
        const at = `${' '.repeat(before)}${text}`;
        expect(foundWords(Buffer.from(at), table) & (bit as number), at).toBe(bit);
        expect(foundWords(Buffer.from(at.slice(0, -1)), table) & (bit as number), at.slice(0, -1)).toBe(0);
        const other = text.toUpperCase() === text ? text.toLowerCase() : text.toUpperCase();
        const spelled = `${' '.repeat(before)}${other}`;
        if (other !== text) expect(foundWords(Buffer.from(spelled), table) & (bit as number), spelled).toBe(0);
      }
    }
  });

  it('finds a word after more candidate samples than one batch holds, and no word in near misses alone', () => {
    // Each near miss (the word without its last character) is a candidate the comparison refuses: hundreds of them
    // before the word make the scan collect candidates in several batches (byte-scan.ts HITS).
    const table = wordTable(GROUPS);
    for (const { text, bit } of GROUPS) {
      const misses = `${text.slice(0, -1)} `.repeat(150);
      for (let before = 0; before < 4; before++) {
        const hit = Buffer.from(`${' '.repeat(before)}${misses}${text}${misses}`);
        expect(foundWords(hit, table) & (bit as number), `${text} after ${before}`).toBe(bit);
        const miss = Buffer.from(`${' '.repeat(before)}${misses}`);
        expect(foundWords(miss, table), `near misses of ${text}`).toBe(oracle(miss));
      }
    }
  });

  it("gives each stage its own answer when the stages share one plan (no group's bit read by another)", () => {
    const filters = enabledFilters({ ids: [...DEFAULT_FILTER_IDS], errorMessages: [], releases: [] });
    const eventFilters = filters.filter((filter) => filter.kinds.includes('event'));
    const shared = new ScanPlan();
    const prescan = createPrescan(TRIGGER_WORDS);
    const prescanBit = shared.add(prescan.scanWords);
    const shapeBit = shared.addShapes(prescan.scanShapes);
    const sharedGate = createGate(eventFilters, shared);
    const sharedRules = createRulePrefilter(ignoreRules, shared);
    const ownGate = createGate(eventFilters, new ScanPlan());
    const packagePrefilter = createPrefilter(ignoreRules);
    const r = seededRandom(280);
    const counts = { gate: 0, rules: 0, prescan: 0 };
    for (let i = 0; i < 20_000; i++) {
      const bytes = payload(r);
      const item = createItem({ type: 'event' }, bytes);
      const texts = new ItemTexts();
      const gate = sharedGate(item, texts);
      expect(gate).toBe(ownGate(item, new ItemTexts()));
      const rules = sharedRules(item, texts);
      expect(rules).toBe(packagePrefilter(bytes));
      const found = texts.found(item, shared);
      const walk = (found & prescanBit) !== 0 || prescan(bytes, texts.of(item), true, (found & shapeBit) !== 0);
      expect(walk).toBe(prescan(bytes));
      counts.gate += gate ? 1 : 0;
      counts.rules += rules ? 1 : 0;
      counts.prescan += walk ? 1 : 0;
    }
    for (const count of Object.values(counts)) expect(count).toBeGreaterThan(1000);
    for (const count of Object.values(counts)) expect(count).toBeLessThan(18_000);
  });
});
