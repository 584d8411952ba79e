// Local quotas, the spike shield and the fingerprint they count by, on items and a clock the tests move.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { errorEvent } from '@app/test-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createItem } from '../../../src/envelope/serialize.ts';
import type { EnvelopeItem } from '../../../src/envelope/types.ts';
import { errorFingerprint, normalizeText } from '../../../src/pipeline/quota/fingerprint.ts';
import { QuotaCounters, quotaHeaders } from '../../../src/pipeline/quota/quota.ts';
import { parseQuotaSettings, type Quota, type QuotaSettings } from '../../../src/pipeline/quota/settings.ts';
import { SpikeShield } from '../../../src/pipeline/quota/spike-shield.ts';
import { createQuotaStage } from '../../../src/pipeline/quota/stage.ts';

const item = (type: string, payload = '{}'): EnvelopeItem => createItem({ type }, Buffer.from(payload));
const quota = (q: Partial<Quota>): Quota => ({
  id: 'q',
  categories: ['error'],
  scope: 'project',
  limit: 2,
  window: 60,
  reasonCode: 'project_quota',
  ...q,
});
const settingsOf = (raw: unknown): QuotaSettings => {
  const parsed = parseQuotaSettings(raw);
  if ('errors' in parsed) throw new Error(JSON.stringify(parsed.errors));
  return parsed.settings;
};
const T0 = 1_800_000_000_000; // a window boundary for every window of whole minutes
const keys = { project: 'abc', network: 'abc\u0000198.51.100.7' };

describe('QuotaCounters', () => {
  it('drops what passes the limit in its category and keeps the other categories', () => {
    const counters = new QuotaCounters();
    const quotas = [quota({})];
    const items = [item('event'), item('event'), item('event'), item('transaction'), item('client_report')];
    const decision = counters.apply(quotas, keys, items, T0);
    expect(decision.items.map((i) => i.type)).toEqual(['event', 'event', 'transaction', 'client_report']);
    expect(decision.discarded).toEqual([{ reason: 'quota', category: 'error', quantity: 1 }]);
    expect(quotaHeaders(decision.limits)).toEqual({
      'retry-after': '60',
      'x-sentry-rate-limits': '60:error:project:project_quota',
    });
  });

  it.each([
    ['the same window', 59_999, 0],
    ['the next window', 60_000, 1],
  ])('counts fixed windows: an event %s later is kept %i times', (_name, later, kept) => {
    const counters = new QuotaCounters();
    counters.apply([quota({ limit: 1 })], keys, [item('event')], T0);
    expect(counters.apply([quota({ limit: 1 })], keys, [item('event')], T0 + later).items).toHaveLength(kept);
  });

  it('announces the seconds left in the window', () => {
    const counters = new QuotaCounters();
    const decision = counters.apply([quota({ limit: 0 })], keys, [item('event')], T0 + 45_500);
    expect(quotaHeaders(decision.limits)['retry-after']).toBe('15');
  });

  it('counts a network quota per network, announced as key scope', () => {
    const counters = new QuotaCounters();
    const quotas = [quota({ scope: 'network', categories: [], limit: 1, reasonCode: 'network_quota' })];
    expect(counters.apply(quotas, keys, [item('span')], T0).items).toHaveLength(1);
    const second = counters.apply(quotas, keys, [item('span')], T0);
    expect(second.items).toHaveLength(0);
    expect(quotaHeaders(second.limits)['x-sentry-rate-limits']).toBe('60::key:network_quota');
    expect(counters.apply(quotas, { ...keys, network: 'abc\u0000203.0.113.9' }, [item('span')], T0).items).toHaveLength(
      1,
    );
  });

  it("counts attachments in bytes, and drops an event's attachments with it", () => {
    const counters = new QuotaCounters();
    const bytes = [quota({ id: 'bytes', categories: ['attachment'], limit: 10 })];
    const first = counters.apply(
      bytes,
      keys,
      [item('attachment', 'x'.repeat(8)), item('attachment', 'x'.repeat(8))],
      T0,
    );
    expect(first.discarded).toEqual([
      { reason: 'quota', category: 'attachment', quantity: 8 },
      { reason: 'quota', category: 'attachment_item', quantity: 1 },
    ]);
    const events = counters.apply([quota({ limit: 0 })], keys, [item('event'), item('attachment', 'abc')], T0);
    expect(events.items).toEqual([]);
    expect(events.discarded).toContainEqual({ reason: 'quota', category: 'attachment', quantity: 3 });
  });

  it('does not count an item another quota dropped', () => {
    const counters = new QuotaCounters();
    const quotas = [quota({ id: 'wide', categories: [], limit: 10 }), quota({ id: 'errors', limit: 0 })];
    counters.apply(
      quotas,
      keys,
      Array.from({ length: 20 }, () => item('event')),
      T0,
    );
    expect(counters.apply(quotas, keys, [item('span')], T0).items).toHaveLength(1);
  });

  it('holds at most its cap of counters, forgetting the least recently used', () => {
    const counters = new QuotaCounters(100);
    const quotas = [quota({ scope: 'network', limit: 1 })];
    for (let i = 0; i < 10_000; i++) counters.apply(quotas, { project: 'abc', network: `n${i}` }, [item('event')], T0);
    expect(counters.size).toBe(100);
  });
});

describe('SpikeShield', () => {
  const shield = { threshold: 10, window: 60, keepOneIn: 5 };

  it('keeps the threshold in full, then one in N, and counts again in the next window', () => {
    const spike = new SpikeShield();
    const kept = Array.from({ length: 110 }, () => spike.admit('42', 'TypeError\nboom\nx', shield, T0));
    expect(kept.filter(Boolean)).toHaveLength(10 + 20);
    expect(kept.slice(0, 10).every(Boolean)).toBe(true);
    expect(spike.admit('42', 'TypeError\nother\nx', shield, T0)).toBe(true);
    expect(spike.admit('7', 'TypeError\nboom\nx', shield, T0)).toBe(true);
    expect(spike.admit('42', 'TypeError\nboom\nx', shield, T0 + 60_000)).toBe(true);
  });

  it('stays bounded under a flood of 1M distinct fingerprints, and still holds a spike', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const spike = new SpikeShield(10_000);
    for (let i = 0; i < 1_000_000; i++) {
      spike.admit('42', `Error\nflood ${i.toString(36)}x\n`, shield, T0);
      if (i % 1000 === 0) spike.admit('42', 'TypeError\nthe real spike\n', shield, T0);
    }
    expect(spike.size).toBeLessThanOrEqual(10_000);
    gc();
    // 10,000 entries of a 22-character key and a cell (≈1 MB); 1M kept would be ≈100 MB.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(8 * 1024 * 1024);
    // The spike was seen 1000 times and kept being the most recently used: it is held, and sampled.
    expect(spike.admit('42', 'TypeError\nthe real spike\n', shield, T0)).toBe(false);
  }, 300_000);
});

describe('errorFingerprint', () => {
  const withFrames = (value: string, frames: unknown[]) => ({
    exception: { values: [{ type: 'TypeError', value, stacktrace: { frames } }] },
  });

  it.each<[string, unknown, string | undefined]>([
    [
      'type, message and the innermost in-app frame',
      errorEvent('item 42 not found'),
      'TypeError\nitem # not found\nhttps://shop.example.com/assets/chunk-#bbd.js handler#',
    ],
    [
      'the innermost frame when none is in-app',
      withFrames('x', [{ function: 'a' }, { module: 'lib', function: 'b' }]),
      'TypeError\nx\nlib b',
    ],
    [
      'the query of a file dropped',
      withFrames('x', [{ filename: '/app.js?v=3', function: 'f', in_app: true }]),
      'TypeError\nx\n/app.js f',
    ],
    ['a message event', { message: 'user 7 logged out' }, '\nuser # logged out\n'],
    ['a logentry', { logentry: { message: 'retry %s of %s' } }, '\nretry %s of %s\n'],
    ['no exception or message', { level: 'error' }, undefined],
    ['not an object', [1, 2], undefined],
  ])('reads %s', (_name, event, expected) => {
    expect(errorFingerprint(event)).toBe(expected);
  });
});

describe('normalizeText (property)', () => {
  const word = fc.stringMatching(/^[g-z ,.:()'"]{0,12}$/); // no hex digits or numbers of its own
  const variable = fc.oneof(
    fc.nat().map(String),
    fc.uuid(),
    fc.bigInt({ min: 1n << 24n, max: (1n << 64n) - 1n }).map((n) => `0x${n.toString(16)}`),
    fc.integer({ min: 0x100000, max: 0x7fffffff }).map((n) => `${n.toString(16)}9`),
  );
  const template = fc.array(word, { minLength: 1, maxLength: 6 });

  it('gives one fingerprint whatever ids, numbers and addresses fill a message', () => {
    fc.assert(
      fc.property(
        template,
        fc.array(variable, { minLength: 5, maxLength: 5 }),
        fc.array(variable, { minLength: 5, maxLength: 5 }),
        (words, a, b) => {
          const fill = (values: string[]) => words.map((w, i) => `${w} ${values[i % values.length]} `).join('');
          expect(normalizeText(fill(a))).toBe(normalizeText(fill(b)));
        },
      ),
    );
  });

  it('is idempotent, and leaves no digit behind', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const once = normalizeText(text);
        expect(normalizeText(once)).toBe(once);
        expect(once).not.toMatch(/\d/);
      }),
    );
  });

  it('keeps messages that differ in their words apart', () => {
    fc.assert(
      fc.property(word, word, fc.nat(), (a, b, n) => {
        fc.pre(a !== b);
        expect(normalizeText(`${a} ${n}`)).not.toBe(normalizeText(`${b} ${n}`));
      }),
    );
  });
});

describe('the quota stage', () => {
  it('samples a spike before the quota counts it, so the spike does not spend the quota', () => {
    let now = T0;
    const settings = settingsOf({
      limits: [{ categories: ['error'], limit: 20, window: 60 }],
      spikeShield: { threshold: 5, window: 60, keepOneIn: 10 },
    });
    const stage = createQuotaStage({
      clientNetwork: (address) => address,
      now: () => now,
    });
    const spike = () => item('event', JSON.stringify(errorEvent('boom')));
    const result = stage.apply(settings, 'abc', '42', '198.51.100.7', Array.from({ length: 105 }, spike));
    expect(result.items).toHaveLength(5 + 10);
    expect(result.discarded).toEqual([{ reason: 'spike_shield', category: 'error', quantity: 90 }]);
    expect(result.headers).toEqual({});
    // Five other errors still fit in the quota the spike left.
    const others = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
    const other = stage.apply(
      settings,
      'abc',
      '42',
      '198.51.100.7',
      others.map((word) => item('event', JSON.stringify(errorEvent(word)))),
    );
    expect(other.items).toHaveLength(5);
    expect(other.dropped).toEqual([{ type: 'event', category: 'error', reason: 'quota' }]);
    now += 60_000;
    expect(stage.apply(settings, 'abc', '42', '198.51.100.7', [spike()]).items).toHaveLength(1);
  });
});

describe('the spike shield with attachments', () => {
  it("drops a sampled event's attachments with it, reported in bytes and items", () => {
    const settings = settingsOf({ spikeShield: { threshold: 1, keepOneIn: 1000 } });
    const stage = createQuotaStage({
      clientNetwork: (address) => address,
      now: () => T0,
    });
    const envelopeItems = () => [item('event', JSON.stringify(errorEvent('boom'))), item('attachment', 'abcd')];
    expect(stage.apply(settings, 'abc', '42', '198.51.100.7', envelopeItems()).items).toHaveLength(2);
    const second = stage.apply(settings, 'abc', '42', '198.51.100.7', envelopeItems());
    expect(second.items).toEqual([]);
    expect(second.discarded).toEqual([
      { reason: 'spike_shield', category: 'error', quantity: 1 },
      { reason: 'spike_shield', category: 'attachment', quantity: 4 },
      { reason: 'spike_shield', category: 'attachment_item', quantity: 1 },
    ]);
  });
});
