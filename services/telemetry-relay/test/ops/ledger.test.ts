// The loss ledger's parts: tallies as a spool row keeps them (bounded labels even from a hand-edited row), project
// labels bounded by the allowlist, and loss series that exist at 0 before the first loss.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createLedger } from '../../src/ops/ledger.ts';
import { decodeTally, encodeTally, tallyOf, tallyText } from '../../src/ops/tally.ts';
import { readLedger } from './ledger-scrape.ts';

const item = (type: string) => ({ type, header: { type }, headerBytes: Buffer.alloc(0), payload: Buffer.alloc(0) });

describe('tallies', () => {
  it.each([
    ['one error', ['event'], '{"error":1}'],
    ['error with attachments', ['event', 'attachment', 'attachment'], '{"error":1,"attachment":2}'],
    ['replay items share a category', ['replay_event', 'replay_recording'], '{"replay":2}'],
    ['a client report', ['client_report'], '{"internal":1}'],
    ['an unknown type', ['x-custom', 'constructor'], '{"unknown":2}'],
  ])('%s', (_, types, encoded) => {
    const tally = tallyOf(types.map(item));
    expect(encodeTally(tally)).toBe(encoded);
    expect([tallyText(types.map(item)), tallyText(types.map(item))]).toEqual([encoded, encoded]); // cached
    expect(decodeTally(encoded)).toEqual(tally);
  });

  it.each([
    ['not JSON', 'error:1', { unknown: 1 }],
    ['an array', '[1]', { unknown: 1 }],
    ['null', 'null', { unknown: 1 }],
    ['a category nobody knows', '{"__proto__x":3,"error":1}', { unknown: 3, error: 1 }],
    ['counts that are not positive integers', '{"error":-1,"span":1.5,"log_item":2}', { log_item: 2 }],
  ])('a row that is not a tally (%s) keeps labels bounded', (_, text, expected) => {
    expect(Object.fromEntries(decodeTally(text))).toEqual(expected);
  });
});

describe('the ledger', () => {
  const scrape = async (registry: Registry) => readLedger(await registry.metrics());

  it('labels projects outside the allowlist "other" and balances accepted, dropped, pending, forwarded', async () => {
    const registry = new Registry();
    const ledger = createLedger([registry], ['7']);
    ledger.opened([{ project: '9', items: '{"error":2}', rows: 3 }]); // spooled under an older allowlist
    ledger.accepted('7', '{"error":2,"attachment":1}');
    ledger.droppedItem('7', 'filter:chunk-load-error', 'event');
    ledger.pending('7', '{"error":1,"attachment":1}');
    ledger.settled('7', '{"error":1,"attachment":1}', 'forwarded', Date.now());
    ledger.settled('9', '{"error":2}', 'upstream_refused');
    ledger.dropped('9', '{"error":2}', 'expired');
    const result = await scrape(registry);
    expect(result.keys()).toEqual(['7/attachment', '7/error', 'other/error']);
    expect(result.of('other/error')).toEqual({ accepted: 0, atStart: 6, forwarded: 0, dropped: 4, pending: 2 });
    expect(result.of('7/error')).toEqual({ accepted: 2, atStart: 0, forwarded: 1, dropped: 1, pending: 0 });
  });

  it('has every loss reason and the late counter at 0 for a label set once it accepted an item', async () => {
    const registry = new Registry();
    createLedger([registry]).accepted('7', '{"transaction":1}');
    const text = await registry.metrics();
    for (const reason of ['upstream_refused', 'expired', 'lost']) {
      expect(text).toContain(
        `relay_ledger_items_dropped_total{project="7",category="transaction",reason="${reason}"} 0`,
      );
    }
    expect(text).toContain('relay_ledger_items_forwarded_late_total{project="7",category="transaction"} 0');
  });

  it('counts an item forwarded past the objective as late', async () => {
    const registry = new Registry();
    const ledger = createLedger([registry]);
    ledger.pending('7', '{"span":3}');
    ledger.settled('7', '{"span":3}', 'forwarded', Date.now() - 301_000);
    expect(await registry.metrics()).toContain(
      'relay_ledger_items_forwarded_late_total{project="7",category="span"} 3',
    );
  });
});
