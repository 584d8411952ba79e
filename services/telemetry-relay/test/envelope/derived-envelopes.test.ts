// Envelopes the relay builds itself (from CSP reports), and the release and environment names they may carry.
import { describe, expect, it } from 'vitest';
import type { RelayError } from '../../src/core/errors.ts';
import { planEnvelope, writeEnvelope } from '../../src/envelope/build.ts';
import { parseEnvelope } from '../../src/envelope/parse.ts';
import { environmentProblem, releaseProblem } from '../../src/envelope/release-names.ts';

describe('release and environment names (Sentry docs: "Releases: naming", "Environments")', () => {
  it.each([
    ['web@1.0.0', undefined],
    ['frontend@2026.11.25+abc123', undefined],
    ['r'.repeat(200), undefined],
    ['r'.repeat(201), /201 characters long; Sentry takes at most 200/],
    ['a\u0001b', /control character/],
    ['a\nb', /control character/],
    ['a\tb', /control character/],
    ['web/1.0', /contains "\/"/],
    ['web\\1.0', /contains "\/"/],
    ['.', /reserves/],
    ['..', /reserves/],
    [' ', /reserves/],
    ['latest', /reserves/],
  ])('release %# → %s', (name, problem) => {
    const found = releaseProblem(name);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });

  it.each([
    ['production', undefined],
    ['e'.repeat(64), undefined],
    ['e'.repeat(65), /65 characters long; Sentry takes at most 64/],
    ['prod\r\n', /control character/],
    ['eu/prod', /"\/" or a space/],
    ['eu prod', /"\/" or a space/],
    ['None', /"None"/],
  ])('environment %# → %s', (name, problem) => {
    const found = environmentProblem(name);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });
});

describe('envelopes the relay builds: sized and checked before they exist', () => {
  const limits = {
    maxEnvelopeBytes: 32 * 1024,
    maxItems: 10,
    maxItemBytes: 4096,
    maxItemHeaderBytes: 256,
    maxTotalHeaderBytes: 1024,
  };
  const part = (payload: string, extra: Record<string, unknown> = {}) => ({
    header: { type: 'raw_security', content_type: 'application/json', ...extra },
    payload,
  });
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return [(error as RelayError).statusCode, (error as RelayError).message];
    }
    return undefined;
  };

  it('writes exactly the planned bytes, which parse back to the same items', () => {
    const plan = planEnvelope(
      { dsn: 'https://k@h/1' },
      [part('{"a":"é"}'), part('{}', { sentry_release: 'w@1' })],
      limits,
    );
    const envelope = writeEnvelope(plan);
    expect(envelope.bytes.length).toBe(plan.bytes);
    const parsed = parseEnvelope(envelope.bytes, { maxHeaderBytes: 1024, maxItems: 10, maxEventItemBytes: 4096 });
    expect(parsed.items.map((item) => [item.header, item.payload.toString()])).toEqual([
      [{ type: 'raw_security', content_type: 'application/json', length: 10 }, '{"a":"é"}'],
      [{ type: 'raw_security', content_type: 'application/json', sentry_release: 'w@1', length: 2 }, '{}'],
    ]);
  });

  it.each([
    ['too many items', Array.from({ length: 11 }, () => part('{}')), /11 items; at most 10/],
    ['an item too large', [part(`"${'x'.repeat(4096)}"`)], /item 1 would have 4098 bytes/],
    [
      'an item header too long',
      [part('{}', { sentry_release: '\u0001'.repeat(40) })],
      /item 1's header would be \d+ bytes; at most 256/,
    ],
    [
      'header lines adding up',
      Array.from({ length: 8 }, () => part('{}', { pad: 'p'.repeat(100) })),
      /header lines would add up to more than 1024/,
    ],
    [
      'the envelope too large',
      Array.from({ length: 10 }, () => part(`"${'x'.repeat(4000)}"`)),
      /more than 32768 bytes/,
    ],
  ])('refuses %s with a 413 before writing', (_name, parts, detail) => {
    expect(refusal(() => planEnvelope({ dsn: 'https://k@h/1' }, parts, limits))).toEqual([
      413,
      expect.stringMatching(detail),
    ]);
  });
});
