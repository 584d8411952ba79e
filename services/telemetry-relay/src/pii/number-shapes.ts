// The shapes of a US SSN and of an IBAN's start as the shared byte scan (byte-scan.ts) sees them: a proof, in the
// pass that finds the key words, that the prescan's SSN and IBAN regexes (prescan.ts SSN_IBAN) cannot match, so
// they run only on an item holding such a shape (decision 030). Exact for a stride of 2 or 3 (the table caps it).

import type { TableShape } from './byte-scan.ts';

const DIGITS = '0123456789';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ALNUM = `${DIGITS}${UPPER}${UPPER.toLowerCase()}`;
/** Every 7-bit byte: the scan reads a byte beyond ASCII by its low 7 bits, so "not a word character" is all of them. */
const ANY = String.fromCharCode(...Array.from({ length: 128 }, (_, c) => c));

/**
 * A match's first sample lies at offset 0, 1 or 2 in it (samples are at most 3 apart), and each later one 2 or 3
 * further on. For every such offset the sample's pair with the bytes beside it is listed below, all inside the
 * match, so a scan that meets no listed shape has no match (test/pii/number-shapes.test.ts checks every offset).
 */
export const NUMBER_SHAPES: readonly TableShape[] = [
  // `\b[A-Z]{2}\d\d[a-zA-Z0-9]{11}`: the sample at offset 0 (before it only the boundary), 1 or 2.
  { first: UPPER, second: UPPER, before: ANY, after: DIGITS },
  { first: UPPER, second: DIGITS, before: UPPER, after: DIGITS },
  { first: DIGITS, second: DIGITS, before: UPPER, after: ALNUM },
  // `\b\d{3}-\d\d-\d{4}`: stride 3 samples offset 3 (from 0), 4 (from 1) or 2; stride 2 samples 2 or 3.
  { first: '-', second: DIGITS, before: DIGITS, after: DIGITS },
  { first: DIGITS, second: DIGITS, before: '-', after: '-' },
  { first: DIGITS, second: '-', before: DIGITS, after: DIGITS },
];
