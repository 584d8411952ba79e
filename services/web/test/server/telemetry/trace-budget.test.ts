// How many incoming traces the server continues when the client asks it to, and each client's share of that.
import { describe, expect, it } from 'vitest';
import {
  admitForcedSample,
  createTokenBucket,
  createTraceBudget,
  isForcedSample,
  traceContinuations,
} from '../../../src/server/telemetry/trace-budget.ts';

describe('trace continuation budget', () => {
  it.each([
    ['a -1 flag', { parentSpanId: 'ab', sampled: true, sampleRand: 0.9 }, true],
    ['no flag, a baggage sample_rand under the rate', { parentSpanId: 'ab', sampleRand: 0 }, true],
    ['no flag, a sample_rand over the rate', { parentSpanId: 'ab', sampleRand: 0.5 }, false],
    ['a -0 flag (costs nothing to honour)', { parentSpanId: 'ab', sampled: false, sampleRand: 0 }, false],
    ['no incoming trace (decided here)', { sampleRand: 0 }, false],
  ])('%s → forced: %s', (_, trace, forced) => {
    expect(isForcedSample(trace, 0.1)).toBe(forced);
  });

  it('admits a burst of perSecond, then perSecond a second, and counts each outcome', () => {
    let now = 0;
    const bucket = createTokenBucket(5, 5, () => now);
    const before = { ...traceContinuations };
    const admitted = (n: number) => Array.from({ length: n }, () => admitForcedSample(bucket)).filter(Boolean).length;
    expect(admitted(100)).toBe(5);
    now += 1_000;
    expect(admitted(100)).toBe(5);
    now += 200;
    expect(admitted(100)).toBe(1);
    expect(traceContinuations.continued - before.continued).toBe(11);
    expect(traceContinuations.over_budget - before.over_budget).toBe(289);
  });

  it('admits nothing with a budget of 0', () => {
    const bucket = createTokenBucket(0);
    expect(bucket.take()).toBe(false);
  });
});

describe('shares of the budget (issue 28.8)', () => {
  const request = (address: string, site?: string, forwardedFor?: string) => ({
    headers: {
      ...(site ? { 'sec-fetch-site': site } : {}),
      ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
    },
    socket: { remoteAddress: address },
  });
  const admitted = (admit: (r: ReturnType<typeof request>) => boolean, req: ReturnType<typeof request>, n: number) =>
    Array.from({ length: n }, () => admit(req)).filter(Boolean).length;

  it("an attacker forcing -1, with or without a forged Sec-Fetch-Site, leaves a browser's page requests their share", () => {
    let now = 0;
    const admit = createTraceBudget({ perSecond: 10, trustedProxyHops: 0, now: () => now });
    expect(admitted(admit, request('203.0.113.7'), 1_000)).toBe(10);
    expect(admitted(admit, request('203.0.113.7', 'same-origin'), 1_000)).toBe(2);
    expect(admitted(admit, request('::ffff:198.51.100.2', 'same-origin'), 3)).toBe(2);
    expect(admitted(admit, request('198.51.100.3', 'same-origin'), 1)).toBe(1);
    now += 1_000;
    expect(admitted(admit, request('203.0.113.7', 'same-origin'), 1_000)).toBe(2);
    expect(admitted(admit, request('198.51.100.2', 'same-origin'), 1)).toBe(1);
  });

  it('counts an IPv6 /64 as one client, and the client behind the trusted proxies', () => {
    const admit = createTraceBudget({ perSecond: 8, trustedProxyHops: 1, now: () => 0 });
    const from = (n: number) => request('10.0.0.9', 'same-origin', `2001:db8:1:2:${n.toString(16)}::1`);
    expect(Array.from({ length: 100 }, (_, n) => admit(from(n))).filter(Boolean).length).toBe(2);
    expect(admit(request('10.0.0.9', 'same-origin', '2001:db8:1:3::1'))).toBe(true);
  });

  it('counts a forwarded entry that is no IP address as the peer: made-up texts mint no shares', () => {
    const admit = createTraceBudget({ perSecond: 8, trustedProxyHops: 1, now: () => 0 });
    const forged = (n: number) => request('10.0.0.9', 'same-origin', `client-${n}`);
    expect(Array.from({ length: 100 }, (_, n) => admit(forged(n))).filter(Boolean).length).toBe(2);
    expect(admit(request('10.0.0.9', 'same-origin', 'fe80::1%eth0'))).toBe(false);
  });

  it('admits nothing with a budget of 0', () => {
    const admit = createTraceBudget({ perSecond: 0, trustedProxyHops: 0 });
    expect([admit(request('127.0.0.1', 'same-origin')), admit(request('127.0.0.1'))]).toEqual([false, false]);
  });
});
