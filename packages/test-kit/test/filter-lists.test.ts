// uBlock Origin's engine with the lists Debian's package ships: what the shipped lists block today, named by the rule
// as its list writes it, and an extra list taking effect beside them.
import { describe, expect, it } from 'vitest';
import { loadBlocker, type RequestType, shippedLists } from '../src/filter-lists.ts';

const SITE = 'https://shop.example/catalog';

describe('the shipped lists', () => {
  it('are the ones uBlock Origin enables on a fresh install', () => {
    expect(shippedLists().map((list) => list.name)).toEqual(
      expect.arrayContaining(['easylist', 'easyprivacy', 'ublock-filters', 'ublock-privacy']),
    );
  });

  // A table of cases, alike in shape to other functions' tables on purpose (`duplicates` pairs them).
  it.each<[string, RequestType, string, { rule: string; list: string } | undefined]>([
    [
      'https://o1.ingest.sentry.io/api/1/envelope/',
      'xmlhttprequest',
      SITE,
      { rule: '||sentry.io^$third-party', list: 'easyprivacy' },
    ],
    [
      'https://shop.example/api/1/envelope/?sentry_key=k',
      'xmlhttprequest',
      SITE,
      { rule: '/?sentry_key=', list: 'easyprivacy' },
    ],
    [
      'https://shop.example/monitoring?o=1&p=2',
      'xmlhttprequest',
      SITE,
      { rule: '/monitoring?o=$xmlhttprequest', list: 'easyprivacy' },
    ],
    [
      'https://shop.example/sentry-browser.min.js',
      'script',
      SITE,
      { rule: '/sentry-browser.min.js', list: 'easyprivacy' },
    ],
    [
      'https://suno.com/monitoring',
      'xmlhttprequest',
      'https://suno.com/',
      { rule: '||suno.com/monitoring', list: 'ublock-privacy' },
    ],
    // Passes today: one generic rule away from being blocked everywhere.
    ['https://shop.example/monitoring', 'xmlhttprequest', SITE, undefined],
    ['https://shop.example/monitoring', 'ping', SITE, undefined],
  ])('%s (%s, from %s)', async (url, type, origin, verdict) => {
    expect((await loadBlocker()).match(url, type, origin)).toEqual(verdict);
  });
});

describe('an extra list', () => {
  it('blocks beside the shipped ones', async () => {
    const blocker = await loadBlocker([{ name: 'generic', raw: '! a comment\n/monitoring\n' }]);
    expect(blocker.lists).toContain('generic');
    expect(blocker.match('https://shop.example/monitoring', 'ping', SITE)).toEqual({
      rule: '/monitoring',
      list: 'generic',
    });
  });
});
