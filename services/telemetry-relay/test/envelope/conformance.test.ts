// Conformance with Sentry's Relay: the envelope strings of Relay's own parser tests (relay-server/src/envelope/mod.rs
// and item.rs), the examples of Sentry's envelope spec (develop-docs/sdk/foundations/data-model/envelopes.mdx) and
// the rules Relay's parser applies that the spec leaves implicit, each with Relay's answer at its envelope endpoint.
// Every row runs (a) through parseEnvelope and (b) through this relay over loopback HTTP against a capture upstream:
// the same accept/refuse decision, and an accepted envelope with items arrives upstream byte for byte.
//
// Rows keep Relay's own DSN; the test relay allows it (ALLOWED_DSNS) and sends everything to the capture server
// (UPSTREAM_URL). A row whose header has no "dsn" is posted with `"dsn":"<DSN>",` added after the header's "{" (a
// tunnel can route by nothing else), unless the row is about exactly that. Bodies are byte strings (latin1).
import { type CaptureServer, post } from '@app/test-kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { RelayError } from '../../src/core/errors.ts';
import { parseEnvelope } from '../../src/envelope/parse.ts';
import { type RunningRelay, withRelay } from '../with-relay.ts';

type Decision = 'accept' | 'refuse';
interface Row {
  /** Relay's answer at its envelope endpoint. */
  relay: Decision;
  /** Only where this relay must answer otherwise, and why. */
  tunnel?: { decision: Decision; why: string };
  /** Relay refuses it when authenticating the request: the parser accepts it, the authorizer refuses it. */
  authorize?: true;
  /** Post the header without a "dsn", as written. */
  noDsn?: true;
}

const DSN = 'https://e12d836b15bb49d7bbf99e64295d995b:@sentry.io/42';
/** Relay's test header: `{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","dsn":"<DSN>"}`. */
const H =
  '{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","dsn":"https://e12d836b15bb49d7bbf99e64295d995b:@sentry.io/42"}';
const ID = '{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}';
const accept: Row = { relay: 'accept' };
const refuse: Row = { relay: 'refuse' };
const requestMetaWhy =
  'origin, remote_addr and forwarded_for would replace what Relay learns from the request (PartialMeta::copy_to): ' +
  'the client address and origin this relay vouches for';

const ROWS: Array<[name: string, body: string, row: Row]> = [
  // relay-server/src/envelope/mod.rs
  ['test_deserialize_envelope_empty', H, accept],
  [
    'test_deserialize_request_meta',
    '{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","dsn":"https://e12d836b15bb49d7bbf99e64295d995b:@other.sentry.io/42","client":"sentry/javascript","version":6,"origin":"http://localhost/","remote_addr":"127.0.0.1","forwarded_for":"8.8.8.8","user_agent":"sentry-cli/1.0"}',
    { relay: 'accept', tunnel: { decision: 'refuse', why: requestMetaWhy } },
  ],
  ['test_deserialize_envelope_empty_newline', `${H}\n`, accept],
  [
    'test_deserialize_envelope_empty_item_newline',
    `${H}\n{"type":"attachment","length":0}\n\n{"type":"attachment","length":0}\n`,
    accept,
  ],
  [
    'test_deserialize_envelope_empty_item_eof',
    `${H}\n{"type":"attachment","length":0}\n\n{"type":"attachment","length":0}`,
    accept,
  ],
  ['test_deserialize_envelope_implicit_length', `${H}\n{"type":"attachment"}\nhelloworld\n`, accept],
  ['test_deserialize_envelope_implicit_length_eof', `${H}\n{"type":"attachment"}\nhelloworld`, accept],
  ['test_deserialize_envelope_implicit_length_empty_eof', `${H}\n{"type":"attachment"}`, accept],
  [
    'test_deserialize_envelope_multiple_items',
    `${H}\n{"type":"attachment","length":10,"content_type":"text/plain","filename":"hello.txt"}\n\xef\xbb\xbfHello\r\n\n{"type":"event","length":41,"content_type":"application/json","filename":"application.log"}\n{"message":"hello world","level":"error"}\n`,
    accept,
  ],
  ['test_deserialize_envelope_unknown_item', `${H}\n{"type":"invalid_unknown"}\nhelloworld\n`, accept],
  ['test_deserialize_envelope_replay_recording', `${H}\n{"type":"replay_recording"}\nhelloworld\n`, accept],
  ['test_deserialize_envelope_replay_video', `${H}\n{"type":"replay_video"}\nhelloworld\n`, accept],
  [
    'test_deserialize_envelope_view_hierarchy',
    `${H}\n{"type":"attachment","length":44,"content_type":"application/json","attachment_type":"event.view_hierarchy"}\n{"rendering_system":"compose","windows":[]}\n`,
    accept,
  ],
  ['test_parse_request_envelope', ID, accept],
  [
    'test_parse_request_no_dsn',
    ID,
    {
      relay: 'accept',
      tunnel: { decision: 'refuse', why: 'Relay authenticates by the URL; a tunnel routes by the dsn alone' },
      authorize: true,
      noDsn: true,
    },
  ],
  [
    'test_parse_request_sent_at',
    '{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc", "sent_at": "1970-01-01T00:02:03Z"}',
    accept,
  ],
  ['test_parse_request_sent_at_null', '{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc", "sent_at": null}', accept],
  ['test_parse_request_no_origin', H, accept],
  [
    'test_parse_request_validate_project',
    '{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","dsn":"https://e12d836b15bb49d7bbf99e64295d995b:@sentry.io/99"}',
    { relay: 'refuse', authorize: true },
  ],
  [
    'test_parse_request_validate_key',
    '{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","dsn":"https://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:@sentry.io/42"}',
    { relay: 'refuse', authorize: true },
  ],
  [
    'test_parse_request_validate_origin',
    '{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","dsn":"https://e12d836b15bb49d7bbf99e64295d995b:@sentry.io/42","origin":"http://localhost/"}',
    refuse,
  ],
  // relay-server/src/envelope/item.rs (items on their own there; here behind Relay's test header)
  [
    'test_internal_item_type_does_not_parse',
    `${H}\n{"type":"integration","content_type":"application/vnd.sentry.integration.otel.logs+json"}`,
    refuse,
  ],
  [
    'test_internal_content_type_does_parse',
    `${H}\n{"type":"attachment","content_type":"application/vnd.sentry.integration.otel.logs+json","length":5}\n12345`,
    accept,
  ],
  // develop-docs envelopes.mdx, "Headers" and "Full Examples"
  ['spec: header-only example', '{"event_id":"12c2d058d58442709aa2eca08bf20986"}', accept],
  [
    'spec: envelope with 2 items',
    `${H}\n{"type":"attachment","length":10,"content_type":"text/plain","filename":"hello.txt"}\n\xef\xbb\xbfHello\r\n\n{"type":"event","length":41,"content_type":"application/json","filename":"application.log"}\n{"message":"hello world","level":"error"}\n`,
    accept,
  ],
  [
    'spec: envelope with 2 items, last newline omitted',
    `${H}\n{"type":"attachment","length":10,"content_type":"text/plain","filename":"hello.txt"}\n\xef\xbb\xbfHello\r\n\n{"type":"event","length":41,"content_type":"application/json","filename":"application.log"}\n{"message":"hello world","level":"error"}`,
    accept,
  ],
  [
    'spec: envelope with 2 empty attachments',
    `${ID}\n{"type":"attachment","length":0}\n\n{"type":"attachment","length":0}\n\n`,
    accept,
  ],
  [
    'spec: envelope with 2 empty attachments, last newline omitted',
    `${ID}\n{"type":"attachment","length":0}\n\n{"type":"attachment","length":0}\n`,
    accept,
  ],
  ['spec: item with implicit length, terminated by newline', `${ID}\n{"type":"attachment"}\nhelloworld\n`, accept],
  ['spec: item with implicit length, terminated by EOF', `${ID}\n{"type":"attachment"}\nhelloworld`, accept],
  [
    'spec: envelope without headers',
    '{}\n{"type":"session"}\n{"started": "2020-02-07T14:16:00Z","attrs":{"release":"sentry-test@1.0.0"}}',
    accept,
  ],
  // What Relay's parser (serde_json's stream parser into typed headers) refuses or takes that the spec leaves implicit
  ['rule: CRLF line endings', `${H}\r\n{"type":"event"}\r\n{}\r\n`, refuse],
  ['rule: a space after the envelope header', `${H} \n{"type":"event"}\n{}`, refuse],
  ['rule: a space after an item header', `${H}\n{"type":"event"} \n{}`, refuse],
  ['rule: "length": 2.0', `${H}\n{"type":"attachment","length":2.0}\nab`, refuse],
  ['rule: "length": "2"', `${H}\n{"type":"attachment","length":"2"}\nab`, refuse],
  ['rule: "length": null (no length)', `${H}\n{"type":"attachment","length":null}\nab`, accept],
  ['rule: a second trailing newline', `${H}\n{"type":"event"}\n{}\n\n`, refuse],
  ['rule: a header-only envelope with two newlines', `${H}\n\n`, refuse],
  ['rule: blank lines before an item header', `${H}\n{"type":"event"}\n{}\n\n\n{"type":"session"}\n{}`, accept],
  ['rule: spaces before an item header', `${H}\n  {"type":"event"}\n{}`, accept],
  [
    'rule: an unparseable sent_at',
    `{"dsn":"https://e12d836b15bb49d7bbf99e64295d995b:@sentry.io/42","sent_at":"yesterday"}\n{"type":"event"}\n{}`,
    refuse,
  ],
  ['rule: a sent_at without a time zone', '{"sent_at":"2026-11-22T01:00:00"}\n{"type":"event"}\n{}', refuse],
  ['rule: a relaxed RFC 3339 sent_at', '{"sent_at":"2026-11-22 01:00:00+0200"}\n{"type":"event"}\n{}', accept],
  ['rule: an event_id that is no UUID', '{"event_id":"nope"}\n{"type":"event"}\n{}', refuse],
  ['rule: a hyphenated event_id', '{"event_id":"9ec79c33-ec99-42ab-8353-589fcb2e04dc"}\n{"type":"event"}\n{}', accept],
  [
    'rule: dsn twice, once spelled \\u0064sn',
    '{"dsn":"https://e12d836b15bb49d7bbf99e64295d995b:@sentry.io/42","\\u0064sn":"https://e12d836b15bb49d7bbf99e64295d995b:@evil.example/42"}\n{"type":"event"}\n{}',
    refuse,
  ],
  [
    'rule: an unknown key twice (the last counts)',
    `{"sdk":{"name":"a"},"sdk":{"name":"b"}}\n{"type":"event"}\n{}`,
    accept,
  ],
  ['rule: type twice', `${H}\n{"type":"event","type":"attachment"}\n{}`, refuse],
  ['rule: an empty type (an unknown item)', `${H}\n{"type":""}\n{}`, accept],
  ['rule: an item header without type', `${H}\n{"length":2}\n{}`, refuse],
  ['rule: an unknown attachment_type', `${H}\n{"type":"attachment","attachment_type":"event.mine"}\n{}`, refuse],
  ['rule: "sampled": "yes"', `${H}\n{"type":"event","sampled":"yes"}\n{}`, refuse],
  [
    'rule: an item header 127 levels deep',
    `${H}\n{"type":"event","x":${'['.repeat(126)}${']'.repeat(126)}}\n{}`,
    accept,
  ],
  [
    'rule: an item header 128 levels deep',
    `${H}\n{"type":"event","x":${'['.repeat(127)}${']'.repeat(127)}}\n{}`,
    refuse,
  ],
  ['rule: half a surrogate pair in a header', `${H}\n{"type":"event","x":"\\ud800"}\n{}`, refuse],
  ['rule: invalid UTF-8 in a header', `${H}\n{"type":"event","x":"\xff"}\n{}`, refuse],
];

const under = withRelay(({ capture }) => ({
  ALLOWED_DSNS: `${DSN},https://e12d836b15bb49d7bbf99e64295d995b:@other.sentry.io/42`,
  UPSTREAM_URL: capture.envelopeUrl('42'),
}));
let capture: CaptureServer;
let relay: RunningRelay;
let forwarded = 0;
beforeAll(() => ({ capture, relay } = under));

const bytes = (body: string) => Buffer.from(body, 'latin1');
const withDsn = (body: string) => {
  const line = body.split('\n')[0] ?? '';
  if (line.includes('"dsn"')) return body;
  const brace = body.indexOf('{');
  const rest = body.slice(brace + 1);
  return `${body.slice(0, brace)}{"dsn":"${DSN}"${rest.trimStart().startsWith('}') ? '' : ','}${rest}`;
};

describe('conformance with Relay: parseEnvelope', () => {
  it.each(ROWS)('%s', (_name, body, row) => {
    const expected = row.authorize ? 'accept' : (row.tunnel?.decision ?? row.relay);
    let decision: Decision = 'accept';
    try {
      parseEnvelope(bytes(body), { maxHeaderBytes: 64 * 1024, maxItems: 1000, maxEventItemBytes: 1024 * 1024 });
    } catch (error) {
      if (!(error instanceof RelayError) || error.statusCode >= 500) throw error;
      decision = 'refuse';
    }
    expect(decision).toBe(expected);
  });
});

describe('conformance with Relay: the relay over HTTP', () => {
  it.each(ROWS)('%s', async (_name, body, row) => {
    const posted = bytes(row.noDsn ? body : withDsn(body));
    const before = capture.envelopes.length;
    const response = await post(relay.tunnel, posted);
    if ((row.tunnel?.decision ?? row.relay) === 'refuse') {
      expect(response.status, JSON.stringify(response.json)).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      return;
    }
    expect(response.status, JSON.stringify(response.json)).toBe(200);
    if (parseEnvelope(posted, { maxHeaderBytes: 65536, maxItems: 1000, maxEventItemBytes: 1 << 20 }).items.length > 0) {
      const arrived = await capture.waitFor(
        (e) => capture.envelopes.indexOf(e) >= before && e.body.equals(posted),
        5000,
      );
      expect(arrived.body.equals(posted)).toBe(true);
      forwarded++;
    }
  });

  it('forwarded every accepted envelope with items once, and nothing else', async () => {
    const limits = { maxHeaderBytes: 65536, maxItems: 1000, maxEventItemBytes: 1 << 20 };
    const expected = ROWS.filter(
      ([, body, row]) =>
        (row.tunnel?.decision ?? row.relay) === 'accept' &&
        parseEnvelope(bytes(row.noDsn ? body : withDsn(body)), limits).items.length > 0,
    ).length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect([forwarded, capture.envelopes.length]).toEqual([expected, expected]);
    expect(expected).toBeGreaterThan(20);
  });
});
