// The fast path means what the slow path means: the scrub stage as the route runs it (byte prescan over the shared
// scan, then the walk with its per-string check) against a reference that parses the item first and walks every
// decoded string with the full rules, on generated items (test/pii/scrub-arbitraries.ts), for each kind of settings.
// Any difference in what upstream would read fails with the shrunk item; so does a string the forwarded bytes still
// hold (a shadowed duplicate key's value too) that upstream would not read and the rules would change.
// The reference is the scrubber's own walk (pii/event.ts) with mayMatch off and every item walked: the rules and
// their conformance with Relay are scrub-conformance.test.ts's; this test proves only that the shortcuts
// (pii/prescan.ts, byte-scan.ts, number-shapes.ts, pipeline/item-scan.ts) skip nothing the walk would change, so it
// imports none of them.
// `npm test` runs a fixed seed and a bounded count; a longer run (another seed: FC_SEED):
//   FC_RUNS=100000 npx vitest run --project telemetry-relay test/pii/prescan-differential.test.ts
import { removeTempDirs } from '@app/test-kit';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEnvelope } from '../../src/envelope/parse.ts';
import { type CompiledScrub, compileScrub, type ScrubSettings, scrubEvent, walkChildren } from '../../src/pii/index.ts';
import { scrubString } from '../../src/pii/strings.ts';
import { createFilter } from '../../src/pipeline/filter.ts';
import { createInboundFilters } from '../../src/pipeline/inbound-filters/stage.ts';
import { ScanPlan } from '../../src/pipeline/item-scan.ts';
import { ItemTexts } from '../../src/pipeline/item-text.ts';
import { createScrubber } from '../../src/pipeline/scrub.ts';
import { testConfig } from '../with-relay.ts';
import { type GeneratedItem, items, PROFILES } from './scrub-arbitraries.ts';
import { probeItem } from './scrub-probes.ts';

const RUNS = Number(process.env.FC_RUNS ?? 200);
const SEED = Number(process.env.FC_SEED ?? 37);
const LIMITS = { maxEventItemBytes: 1 << 24, maxEnvelopeBytes: 1 << 26 };
/** Dense items, sparse ones, and plain ones with one probe. */
const item = fc.oneof(
  { arbitrary: items(PROFILES.dense), weight: 1 },
  { arbitrary: items(PROFILES.sparse), weight: 1 },
  { arbitrary: probeItem, weight: 6 },
);

const SETTINGS: Array<[name: string, env: Record<string, string>]> = [
  ['the defaults', {}],
  ['SCRUB_STRICT', { SCRUB_STRICT: 'true' }],
  ['SCRUB_IP_ADDRESSES', { SCRUB_IP_ADDRESSES: 'true' }],
  ['SENSITIVE_FIELDS', { SENSITIVE_FIELDS: 'pin,x-api,\u00fcber,my field,Session_ID,a"b,stra\u00dfe' }],
  ['SAFE_FIELDS', { SAFE_FIELDS: 'keep,extra.safe,$user.id,**.note' }],
  [
    'SENSITIVE_FIELDS without the defaults',
    { SCRUB_DEFAULTS: 'false', SENSITIVE_FIELDS: 'pin,\u00fcber,x-api,my field' },
  ],
];

/** The relay's stages as projects/project.ts compiles them: one scan plan for the filters' words and the prescan's. */
function stageFor(env: Record<string, string>) {
  const config = testConfig({ ALLOWED_DSNS: 'https://k@sentry.io/1', ...env });
  const plan = new ScanPlan();
  createFilter(config.ignoreRules, plan);
  createInboundFilters(config.inboundFilters, plan);
  const scrub = createScrubber(config.scrub, LIMITS, plan);
  plan.prepare();
  if (!scrub) throw new Error('these settings scrub');
  return { config, scrub };
}

/** The slow path: parse, then every decoded string through the full rules (mayMatch off), as scrub.ts dispatches. */
function reference(generated: GeneratedItem, settings: ScrubSettings): unknown {
  const parsed = JSON.parse(Buffer.from(generated.json).toString('utf8')) as Record<string, unknown>;
  const compiled = compileScrub(settings) as CompiledScrub;
  const slow: CompiledScrub = { ...compiled, mayMatch: undefined };
  if (generated.type === 'raw_security')
    walkChildren({ c: slow, hits: [], meta: {} }, parsed, { key: 'csp' }, [], 'csp');
  else scrubEvent(parsed, slow);
  return parsed;
}

/** Every string value in `json` with its member's key ('' in an array), shadowed duplicates too: a plain tokenizer. */
function allStrings(json: string): Array<[key: string, value: string]> {
  const out: Array<[string, string]> = [];
  const open: string[] = [];
  let expectKey = false;
  let key = '';
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '{' || c === '[') {
      open.push(c);
      expectKey = c === '{';
    } else if (c === '}' || c === ']') open.pop();
    else if (c === ',') expectKey = open.at(-1) === '{';
    else if (c === ':') expectKey = false;
    else if (c === '"') {
      let end = i + 1;
      while (json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
      const text = JSON.parse(json.slice(i, end + 1)) as string;
      if (expectKey) key = text;
      else out.push([open.at(-1) === '{' ? key : '', text]);
      i = end;
    }
  }
  return out;
}

const stringsIn = (value: unknown, into = new Set<string>()): Set<string> => {
  if (typeof value === 'string') into.add(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      stringsIn(v, into);
    }
  }
  return into;
};

/** Where two serializations first differ, with some context. */
function difference(got: string, want: string): string {
  let i = 0;
  while (i < got.length && got[i] === want[i]) i++;
  const around = (text: string) => JSON.stringify(text.slice(Math.max(0, i - 80), i + 80));
  return `the stage forwards …${around(got)}… where the reference reads …${around(want)}…`;
}

afterAll(() => removeTempDirs());

describe('the scrub stage with its prescan against a full parse and walk', () => {
  it.each(SETTINGS)(
    'changes what upstream reads exactly as the reference, and leaks nothing shadowed (%s)',
    (_n, env) => {
      const { config, scrub } = stageFor(env);
      const compiled = compileScrub(config.scrub) as CompiledScrub;
      const counts = { runs: 0, skipped: 0, changed: 0 };
      const property = fc.property(item, (generated) => {
        const payload = Buffer.from(generated.json);
        const body = Buffer.concat([
          Buffer.from(`{}\n${JSON.stringify({ type: generated.type, length: payload.length })}\n`),
          payload,
          Buffer.from('\n'),
        ]);
        const envelope = parseEnvelope(body, config.limits);
        const result = scrub(envelope.items, body.length, new ItemTexts());
        const forwarded = (result.items[0] as (typeof result.items)[0]).payload.toString('utf8');
        const expected = reference(generated, config.scrub);
        const want = JSON.stringify(expected);
        const got = JSON.stringify(JSON.parse(forwarded));
        if (got !== want) throw new Error(difference(got, want));
        const upstream = stringsIn(expected);
        for (const [key, text] of allStrings(forwarded)) {
          if (upstream.has(text)) continue;
          if (scrubString(text, key, compiled.fields) || scrubString(text, key, compiled.message)) {
            throw new Error(`the forwarded bytes still hold ${JSON.stringify(text)} (under ${JSON.stringify(key)})`);
          }
        }
        counts.runs++;
        if (!compiled.prescan(payload)) counts.skipped++;
        if (want !== JSON.stringify(JSON.parse(generated.json))) counts.changed++;
      });
      fc.assert(property, { seed: SEED, numRuns: RUNS });
      // Both paths are taken often enough for agreement to mean something (strict and IP settings walk every item).
      expect(counts.changed).toBeGreaterThanOrEqual(counts.runs / 50);
      if (!config.scrub.strict && !config.scrub.scrubIpAddresses)
        expect(counts.skipped).toBeGreaterThan(counts.runs / 20);
    },
    Math.max(20_000, RUNS * 40),
  );
});
