// A project's `quotas` value as the projects file gives it, and the env shorthand built into the same shape.

import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import {
  NO_QUOTAS,
  parseQuotaSettings,
  type QuotaProblem,
  type QuotaSettings,
} from '../../../src/pipeline/quota/settings.ts';

const SECRET = 's'.repeat(32);

describe('parseQuotaSettings', () => {
  it.each<[string, unknown, Partial<QuotaSettings>]>([
    ['nothing: no quotas', undefined, { quotas: [], spikeShield: undefined, pageToken: undefined }],
    [
      'one error quota, defaults filled',
      { limits: [{ categories: ['error'], limit: 100, window: 60 }] },
      {
        quotas: [
          {
            id: 'project:error:60s',
            categories: ['error'],
            scope: 'project',
            limit: 100,
            window: 60,
            reasonCode: 'project_quota',
          },
        ],
      },
    ],
    [
      'a network quota on every category',
      { limits: [{ id: 'per-client', scope: 'network', limit: 0, window: 1, reasonCode: 'too_chatty' }] },
      {
        quotas: [{ id: 'per-client', categories: [], scope: 'network', limit: 0, window: 1, reasonCode: 'too_chatty' }],
      },
    ],
    [
      'spike shield, defaults filled',
      { spikeShield: { threshold: 50 } },
      { spikeShield: { threshold: 50, window: 60, keepOneIn: 100 } },
    ],
    ['spike shield off', { spikeShield: false }, { spikeShield: undefined }],
    [
      'page token from the environment',
      { pageToken: { secretEnv: 'SHOP_TOKEN' } },
      { pageToken: { secret: SECRET, skewSeconds: 60, maxTtlSeconds: 86_400 } },
    ],
  ])('accepts %s', (_name, raw, expected) => {
    const parsed = parseQuotaSettings(raw, { SHOP_TOKEN: SECRET });
    expect(parsed).toHaveProperty('settings');
    expect((parsed as { settings: QuotaSettings }).settings).toMatchObject(expected);
  });

  it.each<[string, unknown, RegExp]>([
    ['not an object', [1], /quotas: must be an object/],
    ['an unknown setting', { limit: 5 }, /quotas: unknown setting "limit"/],
    ['limits not an array', { limits: {} }, /quotas.limits: must be an array/],
    [
      'an unknown category',
      { limits: [{ categories: ['errors'], limit: 1, window: 60 }] },
      /limits\[0\].categories: unknown data category "errors"/,
    ],
    ['a negative limit', { limits: [{ limit: -1, window: 60 }] }, /limits\[0\].limit: must be an integer from 0/],
    ['a fractional window', { limits: [{ limit: 1, window: 0.5 }] }, /limits\[0\].window: must be an integer from 1/],
    ['no window', { limits: [{ limit: 1 }] }, /limits\[0\].window: .*got nothing/],
    [
      'an unknown scope',
      { limits: [{ limit: 1, window: 1, scope: 'organization' }] },
      /scope: must be "project" or "network"/,
    ],
    [
      'a reason code with a colon',
      { limits: [{ limit: 1, window: 1, reasonCode: 'a:b' }] },
      /reasonCode: must be 1-64/,
    ],
    [
      'the same id twice',
      {
        limits: [
          { limit: 1, window: 1 },
          { limit: 2, window: 1 },
        ],
      },
      /limits\[1\].id: "project:all:1s" is used twice/,
    ],
    ['a typo in a quota', { limits: [{ limit: 1, window: 1, windows: 2 }] }, /limits\[0\]: unknown setting "windows"/],
    [
      'too many quotas',
      { limits: Array.from({ length: 33 }, (_, i) => ({ id: `q${i}`, limit: 1, window: 1 })) },
      /has 33 quotas; at most 32/,
    ],
    ['a spike shield without threshold', { spikeShield: {} }, /spikeShield.threshold: must be an integer from 1/],
    [
      'a spike shield that keeps one in 0',
      { spikeShield: { threshold: 1, keepOneIn: 0 } },
      /keepOneIn: must be an integer from 1/,
    ],
    ['a short secret', { pageToken: { secret: 'short' } }, /pageToken.secret: must be at least 32 characters/],
    ['an unset secret variable', { pageToken: { secretEnv: 'NOPE' } }, /secretEnv: NOPE is not set/],
    ['both secret and secretEnv', { pageToken: { secret: SECRET, secretEnv: 'SHOP_TOKEN' } }, /not both/],
  ])('refuses %s, naming it', (_name, raw, error) => {
    const parsed = parseQuotaSettings(raw, { SHOP_TOKEN: SECRET });
    expect(parsed).toHaveProperty('errors');
    const { errors } = parsed as { errors: QuotaProblem[] };
    expect(errors.map(({ path, message }) => `${path}: ${message}`).join('\n')).toMatch(error);
  });

  it('gives each error as its path from `quotas` on and what is wrong, apart (the projects file prefixes the path)', () => {
    expect(parseQuotaSettings({ limits: [{ limit: 1, window: 0 }], pageToken: { secretEnv: 'NOPE' } })).toEqual({
      errors: [
        { path: 'quotas.limits[0].window', message: 'must be an integer from 1 to 2678400 (got 0)' },
        { path: 'quotas.pageToken.secretEnv', message: 'NOPE is not set' },
      ],
    });
  });

  it('names every error at once', () => {
    const parsed = parseQuotaSettings({ limits: [{ limit: -1, window: 0 }], spikeShield: { threshold: 0 } });
    expect((parsed as { errors: QuotaProblem[] }).errors).toHaveLength(3);
  });
});

describe('the env shorthand', () => {
  const base = { ALLOWED_DSNS: 'https://abc@o1.ingest.sentry.io/42', LOG_LEVEL: 'silent' };
  const settingsOf = (env: Record<string, string>) =>
    loadConfig({ ...base, ...env }).projects.initial[0]?.quotas ?? NO_QUOTAS;

  it('builds quotas, the spike shield and the page token from the variables', () => {
    const settings = settingsOf({
      QUOTA_ERRORS_PER_MINUTE: '600',
      QUOTA_NETWORK_ITEMS_PER_MINUTE: '120',
      QUOTAS: JSON.stringify([{ categories: ['replay'], limit: 10, window: 3600 }]),
      SPIKE_SHIELD_THRESHOLD: '50',
      PAGE_TOKEN_SECRET: SECRET,
    });
    expect(settings.quotas.map((q) => [q.id, q.scope, q.categories, q.limit, q.window])).toEqual([
      ['project:replay:3600s', 'project', ['replay'], 10, 3600],
      ['quota_errors_per_minute', 'project', ['error'], 600, 60],
      ['quota_network_items_per_minute', 'network', [], 120, 60],
    ]);
    expect(settings.spikeShield).toEqual({ threshold: 50, window: 60, keepOneIn: 100 });
    expect(settings.pageToken?.secret).toBe(SECRET);
  });

  it('is off when no variable is set', () => {
    expect(settingsOf({})).toEqual({ quotas: [], spikeShield: undefined, pageToken: undefined });
  });

  it.each([
    ['QUOTAS', 'not json', /QUOTAS is not JSON/],
    ['QUOTAS', '{"limit":1}', /QUOTAS must be a JSON array/],
    [
      'QUOTAS',
      '[{"limit":1,"window":60,"categories":["errors"]}]',
      /QUOTAS gives quotas.limits\[0\].categories: unknown/,
    ],
    ['QUOTA_ERRORS_PER_MINUTE', 'many', /QUOTA_ERRORS_PER_MINUTE/],
    ['PAGE_TOKEN_SECRET', 'short', /PAGE_TOKEN_SECRET gives quotas.pageToken.secret: must be at least 32/],
  ])('stops at startup on a bad %s', (name, value, error) => {
    expect(() => settingsOf({ [name]: value })).toThrow(error);
  });
});
