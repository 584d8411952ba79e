// Every pattern and scan the relay applies to client text, each with the inputs that cost it most (decision 045):
// built from the rule lists themselves (compileScrub with every setting on, the inbound filters with every filter on,
// the ignore rules), so a rule added later has no worst input here and test/pipeline/linear-cost.test.ts fails until it does.
// The few scans outside those lists are named in OTHER_SCANS.
import { ignoreRules } from '@app/telemetry-rules';
import { createPrefilter } from '@app/telemetry-rules/prefilter';
import { parseDsn } from '../../src/envelope/dsn.ts';
import { releaseProblem } from '../../src/envelope/release-names.ts';
import { isRelayTimestamp } from '../../src/envelope/rfc3339.ts';
import { compileScrub, DEFAULT_SCRUB_SETTINGS, type ScrubSettings } from '../../src/pii/index.ts';
import { createPrescan, createTextCheck, TRIGGER_WORDS } from '../../src/pii/prescan.ts';
import { FORM_BODY } from '../../src/pii/request.ts';
import { enabledFilters, KNOWN_FILTER_IDS } from '../../src/pipeline/inbound-filters/settings.ts';
import type { InboundFilter, Json } from '../../src/pipeline/inbound-filters/types.ts';
import { errorFingerprint, normalizeText } from '../../src/pipeline/quota/fingerprint.ts';

export interface CostEntry {
  name: string;
  /** One worst input of about `n` characters. */
  worst: (n: number) => string;
  /** What the relay runs on it. */
  run: (text: string) => unknown;
}

/** `unit` repeated to `n` characters, then `tail`. */
export const repeat =
  (unit: string, tail = '') =>
  (n: number) =>
    unit.repeat(Math.ceil(n / unit.length)).slice(0, n) + tail;

/** Every setting on: each rule the scrubber can run. */
export const ALL_SCRUB: ScrubSettings = {
  ...DEFAULT_SCRUB_SETTINGS,
  scrubIpAddresses: true,
  strict: true,
  sensitiveFields: ['foo', 'session-id'],
};
/** Globs with inner stars: the ones V8's regex would backtrack on. */
const GLOBS = ['*a*b*c', 'x*y*z*', '*{a,b}*d*'];
export const ALL_FILTERS = { ids: [...KNOWN_FILTER_IDS], errorMessages: GLOBS, releases: GLOBS };

const PEM_BEGIN = '-----BEGIN RSA PRIVATE KEY-----\n';
/** Worst inputs per pattern name (pattern.ts `name`). */
const PATTERN_WORST: Record<string, Array<(n: number) => string>> = {
  CREDITCARD: [repeat('4'), repeat('4111 1111 1111 111'), repeat('4-')],
  IBAN: [repeat('DE12'), repeat('DE1234567890')],
  PEM_KEY: [
    repeat(PEM_BEGIN),
    repeat('-----END RSA PRIVATE KEY-----\n'),
    repeat(`${PEM_BEGIN}\t\t`),
    repeat('-----BEGIN A'),
  ],
  URL_PASSWORD: [repeat('//a:'), repeat('a:'), repeat('x//a.b:c.d')],
  BEARER: [repeat('Bearer '), (n) => `Bearer${' '.repeat(n)}`],
  TOKEN_KEY: [repeat('token'), repeat('toke')],
  PASSWORD_KEY: [repeat('token'), repeat('token '), repeat('tokenx:'.slice(0, 6))],
  US_SSN: [repeat('123-45-'), repeat('123-45-678')],
  EMAIL: [repeat('a.', ' x@y.com'), (n) => `a@${repeat('a.')(n)}1`, repeat('a@a.'), repeat('a.@')],
  USER_PATH: [repeat('a ', '/'), repeat('C:/'), repeat('a/profiles'), repeat('/home/')],
  IPV4: [repeat('1.1.1.'), repeat('255.255.255.')],
  IPV6: [repeat(' 1:'), repeat('1:1:1:'), (n) => ` fe80::%${'a'.repeat(n)}%`, repeat('::')],
  SENSITIVE_FIELDS: [repeat('fo'), repeat('session-')],
};

const event = (fields: Json): Json => fields;
const withUa = (ua: string) => event({ request: { headers: { 'User-Agent': ua } } });
const withValue = (value: string, type = 'Error') => event({ exception: { values: [{ type, value }] } });
/** Worst events per inbound filter id: the field the filter reads, holding the worst text. */
const FILTER_WORST: Record<
  string,
  Array<[key: string, place: (text: string) => Json, worst: (n: number) => string]>
> = {
  'legacy-browsers': [
    ['user-agent', withUa, repeat('Trident/1')],
    ['user-agent', withUa, repeat('Android 1.')],
    ['user-agent', withUa, repeat('Version/1')],
  ],
  'web-crawlers': [
    ['user-agent', withUa, repeat('bot')],
    ['user-agent', withUa, repeat('Slackbot 1.')],
  ],
  'browser-extensions': [
    ['value', (t) => withValue(t), repeat('top.GLOBAL')],
    [
      'abs_path',
      (t) => event({ exception: { values: [{ stacktrace: { frames: [{ abs_path: t }] } }] } }),
      repeat('graph.facebook.co'),
    ],
  ],
  localhost: [['url', (t) => event({ request: { url: `http://${t}` } }), repeat('localhos')]],
  'filtered-transaction': [
    ['transaction', (t) => event({ type: 'transaction', transaction: t }), repeat('/health/')],
    ['transaction', (t) => event({ type: 'transaction', transaction: t }), repeat('healthchec')],
  ],
  'chunk-load-error': [['value', (t) => withValue(t, t), repeat('Uncaught ChunkLoadError: Loading chunk')]],
  'react-hydration-errors': [['value', (t) => withValue(t), repeat('https://react.dev/errors/41')]],
  'invalid-csp': [['blocked-uri', (t) => event({ 'csp-report': { 'blocked-uri': t } }), repeat('a://')]],
  'error-message': [['message', (t) => event({ logentry: { formatted: t } }), repeat('ab')]],
  'release-version': [['release', (t) => event({ release: t }), repeat('ab')]],
};

const IGNORE_WORST: Record<string, (n: number) => string> = {
  'cross-origin-script-error': repeat('Script error'),
  'resize-observer-loop-limit': repeat('ResizeObserver loop limit exceeded'),
  'resize-observer-undelivered': repeat('ResizeObserver loop completed with undelivered notifications'),
};

const prescan = createPrescan(TRIGGER_WORDS);
const textCheck = createTextCheck(TRIGGER_WORDS);
const prefilter = createPrefilter(ignoreRules);
/** The bytes of the last text asked for: made once per size, outside what is timed. */
let last: { text: string; bytes: Buffer } | undefined;
const latin1 = (text: string) => {
  if (last?.text !== text) last = { text, bytes: Buffer.from(text, 'latin1') };
  return last.bytes;
};

/** Scans not in a rule list: the prescan and its per-string check, the form body, the envelope header's fields. */
const OTHER_SCANS: CostEntry[] = [
  ...[
    repeat('4'),
    repeat('123-45-'),
    repeat('DE12'),
    repeat('a@'),
    repeat('a.@'),
    repeat('//a:b@'),
    repeat('\\u00'),
  ].flatMap((worst, i) => [
    { name: `prescan #${i}`, worst, run: (t: string) => prescan(latin1(t)) },
    { name: `text check #${i}`, worst, run: textCheck },
  ]),
  { name: 'form body', worst: repeat('a=b&', ' '), run: (t) => FORM_BODY.test(t) },
  { name: 'form body #1', worst: repeat('a=', '= '), run: (t) => FORM_BODY.test(t) },
  { name: 'ignore-rules prefilter', worst: repeat('Script erro'), run: (t) => prefilter(latin1(t)) },
  { name: 'sent_at timestamp', worst: (n) => `2020-01-01T00:00:00Z${' '.repeat(n)}x`, run: isRelayTimestamp },
  { name: 'sent_at timestamp #1', worst: (n) => `${' '.repeat(n)}2020`, run: isRelayTimestamp },
  { name: 'release name', worst: repeat('a/'), run: releaseProblem },
  { name: 'dsn', worst: (n) => `https://k@${'a:'.repeat(n / 2)}/1`, run: parseDsn },
  // The spike shield's fingerprint (quota/fingerprint.ts): its UUID/hex/number patterns and the frame's file split.
  { name: 'spike-shield text', worst: repeat('abcdef'), run: normalizeText },
  { name: 'spike-shield text #1', worst: repeat('a1-'), run: normalizeText },
  { name: 'spike-shield fingerprint', worst: repeat('abcdef?'), run: (t) => errorFingerprint(errorWithText(t)) },
];

/** An error event whose type, value, frame file and function are all `text`. */
function errorWithText(text: string) {
  const frame = { filename: text, function: text, in_app: true };
  return { exception: { values: [{ type: text, value: text, stacktrace: { frames: [frame] } }] } };
}

/** What is missing a worst input (the test fails on any). */
export const missing: string[] = [];

function scrubEntries(): CostEntry[] {
  const compiled = compileScrub(ALL_SCRUB);
  if (!compiled) throw new Error('everything on scrubs something');
  const out: CostEntry[] = [];
  const seen = new Set<string>();
  for (const rule of [...compiled.fields, ...compiled.message]) {
    const { pattern } = rule;
    if (seen.has(pattern.name)) continue;
    seen.add(pattern.name);
    const worst = PATTERN_WORST[pattern.name];
    if (!worst) missing.push(`scrub pattern ${pattern.name} (rule ${rule.id})`);
    const run =
      rule.replace === 'whole'
        ? (t: string) => pattern.test(t)
        : (t: string) => pattern.spans(t, rule.replace as number);
    for (const [i, w] of (worst ?? []).entries()) out.push({ name: `${pattern.name} #${i}`, worst: w, run });
  }
  return out;
}

function filterEntries(filters: readonly InboundFilter[]): CostEntry[] {
  return filters.flatMap((filter) => {
    const worst = FILTER_WORST[filter.id];
    if (!worst) missing.push(`inbound filter ${filter.id}`);
    return (worst ?? []).map(([key, place, w], i) => ({
      name: `${filter.id} #${i}`,
      worst: w,
      run: (t: string) => [filter.mayMatch(key, t), filter.matches(place(t))],
    }));
  });
}

function ignoreEntries(): CostEntry[] {
  return ignoreRules.flatMap((rule) => {
    const worst = IGNORE_WORST[rule.id];
    if (!worst) missing.push(`ignore rule ${rule.id}`);
    return worst ? [{ name: `ignore ${rule.id}`, worst, run: (t: string) => rule.pattern.test(t) }] : [];
  });
}

export const COST_ENTRIES: readonly CostEntry[] = [
  ...scrubEntries(),
  ...filterEntries(enabledFilters(ALL_FILTERS)),
  ...ignoreEntries(),
  ...OTHER_SCANS,
];

/** The scrub patterns' and filters' worst texts, for the whole-stage tests. */
export const STAGE_WORST = {
  scrub: Object.entries(PATTERN_WORST).flatMap(([name, worst]) =>
    worst.map((w, i) => ({ name: `${name} #${i}`, worst: w })),
  ),
  filters: Object.entries(FILTER_WORST).flatMap(([id, worst]) =>
    worst.map(([, place, w], i) => ({ name: `${id} #${i}`, place, worst: w })),
  ),
};
