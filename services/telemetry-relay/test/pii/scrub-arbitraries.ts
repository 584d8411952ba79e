// Generated items for the prescan's differential test (prescan-differential.test.ts): each rule's positive samples in
// every field the scrubber reaches (and some it does not), spelled as a client may spell them (json-spelling.ts),
// among duplicate keys and numbers in any form. Two profiles: dense (samples and odd spellings everywhere) and
// sparse (one sample now and then in plain surroundings, where a prescan that misses it would skip the item).
import fc from 'fast-check';
import { type Json, plain, type Spelled, spell, spelled, write } from './json-spelling.ts';

/** The words the test's SENSITIVE_FIELDS name (prescan-differential.test.ts), as keys and as values. */
const SENSITIVE_WORDS = ['pin', 'x-api', '\u00fcber', 'my field', 'Session_ID', 'a"b'];

/** Each rule's positive samples (some only under its settings: IPs, e-mail and paths in strict, sensitive words). */
export const SECRETS = [
  '4571234567890111',
  '4111 1111 1111 1111',
  '5500-0000-0000-0004',
  '378282246310005',
  '6011111111111117',
  '4111\t1111\t1111\t1111',
  '4111\u00a01111\u00a01111\u00a01111',
  '4111\u20281111\u20281111\u20281111',
  '078-05-1120',
  'DE89370400440532013000',
  'GB82WEST12345698765432',
  '-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34\n-----END RSA PRIVATE KEY-----',
  'https://jane:hunter2@example.com/x',
  'redis://u:p4ss@cache',
  '@redis://u:p4ss@cache',
  'pa\u017f\u017fword',
  'to\u212aen: x',
  '\u0000otp',
  'pass\u0000word',
  `https://${'u'.repeat(600)}:p@host`,
  'Bearer eyJhbGciOiJIUzI1NiJ9.e30.x',
  'password=hunter2',
  'my token: abc',
  'api_key=k1',
  'secret',
  'Authorization',
  'otp',
  'two_factor',
  'credentials',
  'mysql_pwd',
  'jane@example.com',
  '/home/jane/app.js',
  'C:\\Users\\jane\\notes.txt',
  '192.168.1.23',
  '2001:db8::1',
  '::ffff:10.0.0.1',
  ...SENSITIVE_WORDS,
  'STRA\u1e9eE',
  // What a query string or form body decodes (request.url, query_string, data).
  'pass%77ord=hunter2',
  'card=%34571234567890111',
  'card=4571+2345+6789+0111',
  'otp=1',
  'a=1&otp=2',
  'my+field=1',
];

/** Text near the samples: versions, dates, ids, a lone "@", words that contain a key word's letters. */
const HARMLESS = [
  'ok',
  'GET',
  'Cannot read properties',
  'shop@1.4.2',
  '12345',
  '2026-11-25',
  '1795312800.123',
  'TypeError',
  '/items/42',
  'https://shop.example.com/items?q=red%20shoes&page=2',
  'en-GB',
  'x',
  '',
  'hotpot',
  'footprint',
  'DE8937',
  '07-05-1120',
  'a@b',
  '@',
  'theme=dark',
  'Q7',
  '--',
  'true',
];

/** Single characters around them: every JSON escape, beyond ASCII, surrogates, separators of the pair forms. */
export const AROUND = [
  '\n',
  '\t',
  '\r',
  '\b',
  '\f',
  ' ',
  '/',
  '"',
  '\\',
  '\u00e9',
  '\u017f',
  '\u212a',
  '\u{1f600}',
  '\ud800',
  '\u2028',
  '\u00a0',
  '\u0000',
  '7',
  'a',
  '_',
  '@',
  '+',
  '=',
  '&',
  ';',
  '%',
  '%41',
];

/** Keys: mostly plain, some the rules know (key words, cookie names, IP fields, the scrubber's field names). */
// The prototype's member names too: a key the walk or its `_meta` must treat as any other (decision 044).
export const KEYS = [
  'foo',
  'id',
  'value',
  'data',
  'name',
  'message',
  'url',
  'keep',
  'safe',
  'a',
  '0',
  'type',
  'note',
  '__proto__',
  'constructor',
  'toString',
];
export const SENSITIVE_KEYS = [
  'password',
  'passwd',
  'secret',
  'api_key',
  'apiKey',
  'auth',
  'Authorization',
  'token',
  'x-token',
  'otp',
  'two-factor',
  'credentials',
  'cookie',
  'cookies',
  'session',
  'sessionid',
  'csrf',
  'su',
  ...SENSITIVE_WORDS,
  'ip_address',
  'REMOTE_ADDR',
  'client_ip',
  'http.request.header.cookie',
  'http.request.header.cookie.sessionid',
];
/** Numbers as a client may write them (exponents, -0, beyond 2^53; a card's digits as a number are a sample). */
const NUMBERS = ['0', '-1', '42', '1.5e3', '1E-2', '-0', '1.50', '12345678901234567890', '1e400'];

/** What one profile generates: weights against each other. */
interface Profile {
  harmless: readonly string[];
  around: readonly string[];
  /** Weights of a harmless piece, a character around it, a rule's sample. */
  weights: readonly [number, number, number];
  /** Weight of an odd spelling (case, folding, escapes) against 100, and of a key the rules know against 1000. */
  rare: number;
  sensitiveKeys: number;
  /** Named fields an object holds at most (a sparse item is small, so that most have nothing to scrub). */
  fields: number;
}

/** Pieces and spellings that alone set off no prescan test (no `%XX`, ſ, K, `\u00`), so that most items skip. */
const QUIET = (pieces: readonly string[]) =>
  pieces.filter((piece) => !/%|\u017f|\u212a|DE8937/.test(piece) && !piece.includes('\0'));

export const PROFILES: Record<'dense' | 'sparse', Profile> = {
  dense: { harmless: HARMLESS, around: AROUND, weights: [6, 4, 1], rare: 50, sensitiveKeys: 300, fields: 5 },
  sparse: {
    harmless: QUIET(HARMLESS),
    around: QUIET(AROUND),
    weights: [1000, 500, 1],
    rare: 0,
    sensitiveKeys: 1,
    fields: 2,
  },
};

/** An item as a client may send it: its type and its JSON text. */
export interface GeneratedItem {
  type: string;
  json: string;
}

export function items(profile: Profile): fc.Arbitrary<GeneratedItem> {
  const [harmless, around, secret] = profile.weights;
  const piece = fc.oneof(
    { arbitrary: fc.constantFrom(...profile.harmless), weight: harmless },
    { arbitrary: fc.constantFrom(...profile.around), weight: around },
    { arbitrary: fc.constantFrom(...SECRETS), weight: secret },
  );
  /** A string value: a few pieces, one spelling; a sample keeps the spellings odd enough to hide in. */
  const str = fc.oneof(
    {
      arbitrary: spelled(
        fc.array(piece, { minLength: 1, maxLength: 3 }).map((p) => p.join('')),
        profile.rare,
      ),
      weight: harmless + around,
    },
    {
      arbitrary: spelled(
        fc.tuple(fc.constantFrom(...AROUND), fc.constantFrom(...SECRETS)).map((p) => p.join('')),
        20,
      ),
      weight: secret,
    },
  );
  /** How a field's or a repeated key is spelled: in the sparse profile plainly (escapes alone send it to the walk). */
  const again = fc.oneof(
    { arbitrary: fc.constant('min' as const), weight: 100 },
    { arbitrary: fc.constantFrom('u' as const, 'mix' as const), weight: profile.rare },
  );
  const key = spelled(
    fc.oneof(
      { arbitrary: fc.constantFrom(...KEYS), weight: 1000 },
      { arbitrary: fc.constantFrom(...SENSITIVE_KEYS), weight: profile.sensitiveKeys },
    ),
    profile.rare,
  );
  const leaf: fc.Arbitrary<Json> = fc.oneof(
    { arbitrary: str.map((s) => ({ s })), weight: 6 * (harmless + around) },
    { arbitrary: fc.constantFrom(...NUMBERS).map((n) => ({ n })), weight: harmless + around },
    { arbitrary: fc.constant({ n: '4571234567890111' }), weight: secret },
    { arbitrary: fc.constantFrom('true', 'false', 'null').map((lit) => ({ lit }) as Json), weight: harmless + around },
  );
  /** Members, then copies of some of their keys (spelled anew) with other values: a parser reads the last one. */
  const object = (values: fc.Arbitrary<Json>): fc.Arbitrary<Json> =>
    fc
      .tuple(
        fc.array(fc.tuple(key, values), { maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), again, values), { maxLength: 1 }),
      )
      .map(([members, copies]) => ({
        o: [
          ...members,
          ...(members.length === 0
            ? []
            : copies.map(([i, mode, v]): [Spelled, Json] => {
                const [first] = members[i % members.length] as [Spelled, Json];
                return [spell(first.text, mode, i), v];
              })),
        ],
      }));
  /** Any value a few levels deep: leaves, lists, [key, value] pairs, objects with duplicate keys. */
  const value: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
    v: fc.oneof(
      { depthSize: 'small', maxDepth: 3, withCrossShrink: true },
      { arbitrary: leaf, weight: 5 },
      { arbitrary: fc.array(tie('v'), { maxLength: 3 }).map((a) => ({ a })), weight: 1 },
      { arbitrary: fc.tuple(key, tie('v')).map(([k, v]) => ({ a: [{ s: k }, v] })), weight: 1 },
      { arbitrary: object(tie('v')), weight: 2 },
    ),
  })).v;
  const strValue = str.map((s): Json => ({ s }));
  const fixed = (text: string): Json => ({ s: plain(text) });
  /** An object: some of the named fields (one may come twice), then generic members. */
  const fields = (named: Record<string, fc.Arbitrary<Json>>): fc.Arbitrary<Json> =>
    fc
      .tuple(
        fc.array(
          fc.tuple(
            fc.oneof(...Object.entries(named).map(([k, field]) => field.map((v): [string, Json] => [k, v]))),
            again,
            fc.nat(),
          ),
          { maxLength: profile.fields },
        ),
        object(value).map((o) => ('o' in o ? o.o : [])),
      )
      .map(([picked, extra]) => ({
        o: [...picked.map(([[k, v], mode, mask]): [Spelled, Json] => [spell(k, mode, mask), v]), ...extra],
      }));
  const list = (item: fc.Arbitrary<Json>) => fc.array(item, { minLength: 1, maxLength: 2 }).map((a): Json => ({ a }));
  const values = (item: fc.Arbitrary<Json>) =>
    fc.oneof(
      list(item),
      list(item).map((a): Json => ({ o: [[plain('values'), a]] })),
    );
  const pairs = fc
    .array(fc.tuple(key, strValue), { maxLength: 3 })
    .map((a): Json => ({ a: a.map(([k, v]) => ({ a: [{ s: k }, v] })) }));
  /** A query string or form body: pairs whose keys and values are samples or harmless, spaces as `+`. */
  const query = spelled(
    fc
      .array(
        fc.tuple(
          fc.oneof(
            { arbitrary: fc.constantFrom(...KEYS), weight: 10 },
            { arbitrary: fc.constantFrom(...SENSITIVE_KEYS, 'pass%77ord', 'my+field'), weight: secret },
          ),
          fc.oneof(
            { arbitrary: fc.constantFrom(...profile.harmless), weight: harmless },
            { arbitrary: fc.constantFrom(...SECRETS), weight: secret },
          ),
        ),
        { maxLength: 3 },
      )
      .map((members) => members.map(([k, v]) => `${k}=${v.replaceAll(/[\s#]/g, '+')}`).join('&')),
    profile.rare,
  );
  const frames = fields({ vars: value, filename: strValue, abs_path: strValue, function: strValue }).map(
    (frame): Json => ({ o: [[plain('frames'), { a: [frame] }]] }),
  );
  const url = fc
    .tuple(str, query, fc.constantFrom('', '#top', '#access_token=abc', '#password=x'))
    .map(([path, q, hash]): Json => ({ s: { text: '', raw: `https://shop.example/${path.raw}?${q.raw}${hash}` } }));
  const event = fields({
    extra: object(value),
    tags: fc.oneof(object(strValue), pairs),
    user: fields({ id: strValue, username: strValue, email: strValue, ip_address: strValue }),
    request: fields({
      url,
      query_string: fc.oneof(
        query.map((s): Json => ({ s })),
        pairs,
        object(strValue),
      ),
      cookies: fc.oneof(
        fc.constantFrom('theme=dark; sessionid=abc123', 'otp=1; a=b', 'csrf=x, su=1', ' otp =1').map(fixed),
        object(strValue),
        pairs,
      ),
      headers: fc.oneof(
        object(value),
        pairs,
        strValue.map((cookie): Json => ({ o: [[plain('Cookie'), cookie]] })),
      ),
      data: fc.oneof(
        query.map((s): Json => ({ s })),
        value,
      ),
      env: object(value),
      fragment: strValue,
      method: fc.constant(fixed('GET')),
      unknown_key: value,
    }),
    logentry: fields({ formatted: strValue, message: strValue, params: list(value) }),
    message: strValue,
    breadcrumbs: values(fields({ message: strValue, data: value, category: strValue })),
    exception: values(
      fields({ type: strValue, value: strValue, stacktrace: frames, mechanism: fields({ data: value }) }),
    ),
    stacktrace: frames,
    threads: values(fields({ stacktrace: frames })),
    contexts: fields({
      trace: fields({ type: fc.constant(fixed('trace')), data: object(value) }),
      response: fields({
        type: fc.constant(fixed('response')),
        cookies: strValue,
        headers: object(value),
        data: value,
      }),
      feedback: fields({ message: strValue, contact_email: strValue, name: strValue }),
      browser: object(value),
      shop: object(value),
    }),
    spans: list(
      fields({
        description: strValue,
        data: fields({ 'http.request.header.cookie': strValue, 'http.request.header.cookie.sessionid': strValue }),
      }),
    ),
    sdk: fields({ client_ip: strValue, name: strValue }),
    unknown: value,
  });
  /** A browser's CSP report as the relay builds it (raw_security): the report's fields, any values. */
  const csp = fields({
    'csp-report': fields({
      'document-uri': strValue,
      'blocked-uri': strValue,
      'script-sample': strValue,
      extra: value,
    }),
  });
  return fc
    .oneof(
      { arbitrary: fc.tuple(fc.constantFrom('event', 'transaction', 'feedback'), event), weight: 4 },
      { arbitrary: fc.tuple(fc.constant('raw_security'), csp), weight: 1 },
    )
    .map(([type, body]) => ({ type, json: write(body) }));
}
