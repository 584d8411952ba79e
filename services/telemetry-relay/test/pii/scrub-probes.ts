// One rule sample (the probe) in one field of an otherwise plain item, for the prescan's differential test: where a
// prescan that misses the sample's spelling would skip the item. The probe's key may be given again after it, so
// that only the bytes hold it. Sites: each field the scrubber reaches, as a value, a key or a query/cookie string.
import fc from 'fast-check';
import { type Json, plain, type Spelled, spelled, write } from './json-spelling.ts';
import { AROUND, type GeneratedItem, KEYS, SECRETS, SENSITIVE_KEYS } from './scrub-arbitraries.ts';

type Site = (probe: Json, key: Spelled, shadow: boolean) => Json;

/** What a query string or form body may hold (decoded before its pairs are scrubbed). */
const QUERY = [
  'pass%77ord=hunter2',
  'card=%34571234567890111',
  'card=4571+2345+6789+0111',
  'otp=1',
  'a=1&otp=2',
  'x=otp',
  'x=otp&y=1',
  'my+field=1',
  'pin=1',
  'next=https%3A%2F%2Fu%3Ap%40host',
  'q=red+shoes',
];
/** What a cookie string may hold (split at ; and , and trimmed, not decoded). */
const COOKIES = ['otp=1', ' otp =1', 'sessionid=abc', 'a=b; csrf=x', 'theme=dark', 'x-api=1'];

const obj = (...members: Array<[string | Spelled, Json]>): Json => ({
  o: members.map(([k, v]) => [typeof k === 'string' ? plain(k) : k, v]),
});
/** `{key: probe}`, with the key given again with a plain value when `shadow`. */
const keyed = (probe: Json, key: Spelled, shadow: boolean): Json => ({
  o: shadow
    ? [
        [key, probe],
        [key, { s: plain('ok') }],
      ]
    : [[key, probe]],
});
const at = (path: readonly string[], inner: Json): Json =>
  path.reduceRight<Json>((value, step) => (step === '[]' ? { a: [value] } : obj([step, value])), inner);
const field =
  (...path: string[]): Site =>
  (probe, key, shadow) =>
    at(path, keyed(probe, key, shadow));
const named =
  (...path: string[]): Site =>
  (probe, _key, shadow) =>
    at(path.slice(0, -1), keyed(probe, plain(path.at(-1) as string), shadow));

/** A URL whose query is the probe. */
const url = (probe: Json): Json => {
  const { text, raw } = (probe as { s: Spelled }).s;
  return { s: { text: `https://shop.example/p?${text}`, raw: `https://shop.example/p?${raw}` } };
};

const SITES: Array<[type: string, site: Site, samples?: readonly string[]]> = [
  ['event', field('extra')],
  ['event', (probe, _key, shadow) => obj(['extra', keyed({ s: plain('x') }, (probe as { s: Spelled }).s, shadow)])],
  ['event', field('tags')],
  ['event', field('user')],
  ['event', named('user', 'ip_address')],
  ['event', (probe, key, shadow) => named('request', 'url')(url(probe), key, shadow), QUERY],
  ['event', named('request', 'query_string'), QUERY],
  ['event', named('request', 'data'), QUERY],
  ['event', named('request', 'cookies'), COOKIES],
  ['event', named('request', 'headers', 'Cookie'), COOKIES],
  ['event', field('request', 'headers')],
  ['event', field('request', 'env')],
  ['event', named('logentry', 'formatted')],
  ['event', named('message')],
  ['event', named('breadcrumbs', 'values', '[]', 'message')],
  ['event', field('breadcrumbs', '[]', 'data')],
  ['event', named('exception', 'values', '[]', 'value')],
  ['event', field('exception', 'values', '[]', 'stacktrace', 'frames', '[]', 'vars')],
  ['event', named('exception', 'values', '[]', 'stacktrace', 'frames', '[]', 'abs_path')],
  ['event', field('contexts', 'shop')],
  ['event', named('contexts', 'response', 'cookies'), COOKIES],
  ['transaction', field('spans', '[]', 'data')],
  ['transaction', named('spans', '[]', 'data', 'http.request.header.cookie'), COOKIES],
  ['transaction', named('spans', '[]', 'description')],
  ['event', named('sdk', 'client_ip')],
  ['raw_security', field('csp-report')],
];

/** Some text around a sample (an escape's character, a word, nothing), spelled plainly or oddly. */
const probe = (samples: readonly string[]) =>
  spelled(
    fc
      .tuple(
        fc.oneof(fc.constant(''), fc.constantFrom('paid with', 'x', ...AROUND)),
        fc.constantFrom(...samples),
        fc.constantFrom('', ' ', 'x'),
      )
      .map((parts) => parts.join('')),
    30,
    15,
  );
const key = spelled(fc.constantFrom(...KEYS, ...SENSITIVE_KEYS), 30);

/** An item holding one probe, and a plain member before it or not. */
export const probeItem: fc.Arbitrary<GeneratedItem> = fc.oneof(
  ...SITES.map(([type, site, samples]) =>
    fc
      .tuple(
        samples ? spelled(fc.constantFrom(...samples), 30) : probe(SECRETS),
        key,
        fc.boolean(),
        fc.constantFrom('', '"release":"shop@1.4.2",'),
      )
      .map(([text, k, shadow, filler]) => ({
        type,
        json: `{${filler}${write(site({ s: text }, k, shadow)).slice(1)}`,
      })),
  ),
);
