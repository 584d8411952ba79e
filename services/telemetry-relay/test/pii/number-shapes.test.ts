// The SSN and IBAN shapes in the shared byte scan (src/pii/number-shapes.ts) against the prescan's own regexes: the
// shape bit must be set on every payload either regex matches, at every offset and with both strides the tables
// use (3 for the default words, 2 once a 3-letter sensitive field joins); otherwise the prescan would skip a
// regex that matches. Random payloads show the bit is also often clear (the shortcut is worth having).

import { seededRandom } from '@app/test-kit';
import { describe, expect, it } from 'vitest';
import { foundWords, type TableShape, wordTable } from '../../src/pii/byte-scan.ts';
import { NUMBER_SHAPES } from '../../src/pii/number-shapes.ts';
import { createPrescan, TRIGGER_WORDS } from '../../src/pii/prescan.ts';
import { createOraclePrescan } from './prescan-oracle.ts';

const SSN = /\b\d{3}-\d\d-\d{4}/;
const IBAN = /\b[A-Z]{2}\d\d[a-zA-Z0-9]{11}/;
const SHAPE = 2;
const shapes: TableShape[] = NUMBER_SHAPES.map((shape) => ({ ...shape, bit: SHAPE }));
const tables = [
  ['stride 3', wordTable(TRIGGER_WORDS, shapes)],
  ['stride 2', wordTable([...TRIGGER_WORDS, 'pin'], shapes)],
] as const;
const mayMatch = (text: string) => SSN.test(text) || IBAN.test(text);

const MATCHES = ['078-05-1120', '123-45-67890', 'DE89370400440532013000', 'GB82WEST12345698765432', 'AB12abcdefghijk'];
/** Pieces near the shapes: digits, dashes, capitals, dates, versions, hex ids. */
const PIECES = [...MATCHES, '2026-11-25', '07-05-1120', 'DE8937', 'X11', 'A1', '12', '-', '--', '"', ' ', 'é', 'Ab'];

describe('the SSN and IBAN shapes in the byte scan', () => {
  it.each(tables)('sets the shape bit for every match at offsets 0–8 after any byte (%s)', (_name, table) => {
    for (const match of MATCHES) {
      for (let offset = 0; offset < 9; offset++) {
        for (const before of [' ', '"', '-', '(', '\u00e9', '\u00ff']) {
          for (const after of ['', ' ', '"', '-', 'x']) {
            const text = `${'x'.repeat(offset)}${before}${match}${after}`;
            const bytes = Buffer.from(text, 'latin1');
            if (!mayMatch(text)) continue;
            expect(foundWords(bytes, table) & SHAPE, text).toBe(SHAPE);
          }
        }
      }
    }
  });

  it.each(tables)('sets it on every random payload either regex matches, and not on most others (%s)', (_n, table) => {
    const r = seededRandom(30);
    let clear = 0;
    for (let i = 0; i < 30_000; i++) {
      const parts: string[] = [];
      for (let k = r.next(8); k >= 0; k--) parts.push(r.pick(PIECES));
      const text = parts.join('');
      const set = (foundWords(Buffer.from(text, 'latin1'), table) & SHAPE) !== 0;
      if (mayMatch(text) && !set) expect.fail(`no shape found in ${JSON.stringify(text)}`);
      if (!set) clear++;
    }
    expect(clear).toBeGreaterThan(3000);
  });

  it('leaves the prescan answering as its oracle on number-heavy payloads', () => {
    const prescan = createPrescan(TRIGGER_WORDS);
    const oracle = createOraclePrescan(TRIGGER_WORDS);
    const r = seededRandom(31);
    for (let i = 0; i < 20_000; i++) {
      const parts: string[] = [];
      for (let k = r.next(8); k >= 0; k--) parts.push(r.pick(PIECES));
      const bytes = Buffer.from(parts.join(''), 'latin1');
      if (prescan(bytes) !== oracle(bytes))
        expect.fail(`prescan differs on ${JSON.stringify(bytes.toString('latin1'))}`);
    }
  });
});
