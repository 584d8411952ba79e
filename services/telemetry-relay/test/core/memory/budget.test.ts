// The memory budget and per-client shares, and the default budget taken from the container's memory limit.
import { containerMemoryLimit } from '@app/service-kit';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createClientShares, createMemoryBudget } from '../../../src/core/memory/budget.ts';
import { BUDGET_WITHOUT_LIMIT, defaultBudgetBytes } from '../../../src/core/memory/limit.ts';

const MiB = 1024 * 1024;

describe('memory budget', () => {
  it('takes what fits, refuses what does not without taking anything, and gives back', () => {
    const budget = createMemoryBudget(100);
    expect([budget.take(60), budget.take(50), budget.used]).toEqual([true, false, 60]);
    budget.release(60);
    expect([budget.take(100), budget.used]).toEqual([true, 100]);
    budget.release(100);
    expect(() => budget.release(1)).toThrow(/more than it gave/);
  });

  it('lets one client hold at most its share, and everyone else what is left', () => {
    const budget = createMemoryBudget(100);
    const shares = createClientShares(budget, 40);
    const a1 = shares.hold('a');
    const a2 = shares.hold('a');
    expect([a1.grow(30), a2.grow(20), a2.grow(10)]).toEqual([undefined, 'client', undefined]);
    const b = shares.hold('b');
    const c = shares.hold('c');
    expect([b.grow(40), c.grow(40), c.grow(20)]).toEqual([undefined, 'budget', undefined]);
    expect([budget.used, shares.clients]).toEqual([100, 3]);
    for (const hold of [a1, a2, b, c]) hold.release();
    a1.release(); // twice: nothing more
    expect([budget.used, shares.clients]).toEqual([0, 0]);
  });

  it('shrinks a hold by what it gives back early', () => {
    const budget = createMemoryBudget(100);
    const hold = createClientShares(budget, 100).hold('a');
    hold.grow(70);
    hold.shrink(50);
    expect([hold.bytes, budget.used]).toEqual([20, 20]);
    hold.release();
    expect(budget.used).toBe(0);
  });
});

describe('memory limit and the default budget', () => {
  it.each([
    ['a container limit', 256 * MiB, 24 * 1024 * MiB, 256 * MiB],
    ['none (Node reports 2^64)', 2 ** 64, 24 * 1024 * MiB, undefined],
    ['none (Node reports 0)', 0, 24 * 1024 * MiB, undefined],
  ])('reads %s', (_name, constrained, machine, expected) => {
    expect(containerMemoryLimit(constrained, machine)).toBe(expected);
  });

  it('defaults to 30 % of a container limit, or a fixed size without one', () => {
    expect(defaultBudgetBytes(256 * MiB)).toBe(Math.floor(256 * MiB * 0.3));
    expect(defaultBudgetBytes(undefined)).toBe(BUDGET_WITHOUT_LIMIT);
  });

  it('refuses a budget that cannot hold the largest envelope twice, saying why', () => {
    const base = { ALLOWED_DSNS: 'https://k@o1.ingest.sentry.io/1', SPOOL_DIR: '/tmp/unused' };
    expect(() => loadConfig({ ...base, MEMORY_BUDGET_BYTES: String(30 * MiB) })).toThrow(
      /MEMORY_BUDGET_BYTES \(31457280\) must be at least twice MAX_ENVELOPE_BYTES \(20971520\)/,
    );
    const config = loadConfig({ ...base, MEMORY_BUDGET_BYTES: String(100 * MiB) });
    expect(config.memory).toMatchObject({ budgetBytes: 100 * MiB, perClientBytes: 25 * MiB });
  });
});

describe('ALLOW_LOOPBACK_DSNS', () => {
  it.each([
    ['8969', [8969]],
    ['8969, 9000', [8969, 9000]],
    ['false', []],
  ])('%s → ports %j', (value, ports) => {
    const config = loadConfig({
      ALLOW_LOOPBACK_DSNS: value,
      SPOOL_DIR: '/tmp/unused',
      TUNNEL_PATH: '/t',
      ...(ports.length ? {} : { ALLOWED_DSNS: 'https://k@o1.ingest.sentry.io/1' }),
    });
    expect(config.loopbackPorts).toEqual(ports);
  });

  it('refuses "true": every local port would be reachable through the relay', () => {
    expect(() => loadConfig({ ALLOW_LOOPBACK_DSNS: 'true', SPOOL_DIR: '/tmp/unused' })).toThrow(
      /ALLOW_LOOPBACK_DSNS must be false or the loopback port\(s\)/,
    );
  });
});
