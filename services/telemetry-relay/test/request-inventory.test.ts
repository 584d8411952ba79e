// Generated from request-inventory.ts: every field the relay reads, sent at 64 KiB (and just inside the limit that
// would refuse it first, so the field's own rule runs), in two alphabets ("<", which URL-escaping triples, and
// U+0001, which JSON-escaping makes six bytes), and 1000 times where the relay multiplies it. Each answer is a 4xx
// or a 200 with a body of at most 4 KiB; no log line is over 8 KiB; the memory budget is all given back.
// The relay runs as a process, so its log lines are read as they are written.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type CaptureServer, EVENT_ID, removeTempDirs, type ServiceProcess, startCaptureServer } from '@app/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELDS, type Field } from './request-inventory.ts';
import { spawnRelay } from './with-relay.ts';

const KiB = 1024;
const MAX_ANSWER_BYTES = 4 * KiB;
const MAX_LOG_LINE_BYTES = 8 * KiB;

let capture: CaptureServer;
let relay: ServiceProcess;
let dsn: string;

beforeAll(async () => {
  capture = await startCaptureServer();
  dsn = capture.dsn({ projectId: '42', publicKey: 'abc' });
  relay = await spawnRelay({
    ALLOWED_DSNS: dsn,
    TRUSTED_PROXY_HOPS: '1',
    LOG_SAMPLE_EVERY: '1',
    MAX_ENVELOPE_BYTES: String(8 * KiB * KiB),
  });
});
afterAll(async () => {
  await relay?.kill();
  await capture?.close();
  removeTempDirs();
});

interface RawRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}
interface RawAnswer {
  status: number | 'reset';
  bodyBytes: number;
}

/** One request over its own socket, byte for byte as written (no client-side header checks), read to the end. */
function send(request: RawRequest): Promise<RawAnswer> {
  const { hostname: host, port } = new URL(relay.url);
  const body = Buffer.from(request.body);
  const head = [
    `POST ${request.path} HTTP/1.1`,
    `host: ${host}:${port}`,
    'connection: close',
    ...Object.entries({ 'content-length': String(body.length), ...request.headers }).map(([k, v]) => `${k}: ${v}`),
  ].join('\r\n');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), host);
    const done = () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: status ? Number(status) : 'reset', bodyBytes: split === -1 ? 0 : text.length - split - 4 });
    };
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', done);
    socket.on('error', () => socket.destroy());
    socket.setTimeout(15_000, () => socket.destroy());
    socket.write(`${head}\r\n\r\n`);
    socket.write(body); // not ended: the server closes the connection once it answered (connection: close)
  });
}

const event = (header: Record<string, unknown>, items: string[]) =>
  [JSON.stringify({ event_id: EVENT_ID, dsn, ...header }), ...items].join('\n');
const forwarded = { 'x-forwarded-for': '198.51.100.7' };
const batch = (reports: unknown[]) => JSON.stringify(reports);
const violation = (extra: Record<string, unknown> = {}) => ({
  type: 'csp-violation',
  url: 'https://shop.example.com/',
  body: { 'blocked-uri': 'inline' },
  ...extra,
});
const securityPath = (query: Record<string, string>) =>
  `/monitoring/security?${new URLSearchParams({ dsn, ...query })}`;
const reportHeaders = { 'content-type': 'application/reports+json', ...forwarded };

/** The request carrying `value` in `field`, `copies` times where the field is repeated per item or report. */
function requestFor(field: Field, text: string, copies = 1): RawRequest {
  // A DSN-shaped value, so the text reaches the public key (which the URL parser escapes) rather than "not a URL".
  const value = field.name === 'dsn' ? `https://${text}@o0.ingest.example/2` : text;
  const ordinary = event({}, ['{"type":"event"}', '{}']);
  switch (`${field.route} ${field.place}`) {
    case 'tunnel HTTP header':
      return { path: '/monitoring', headers: { ...forwarded, [field.name]: value }, body: ordinary };
    case 'security HTTP header':
      return { path: securityPath({}), headers: { ...forwarded, [field.name]: value }, body: batch([violation()]) };
    case 'security query': {
      const reports = Array.from({ length: copies }, () => violation());
      return { path: securityPath({ [field.name]: value }), headers: reportHeaders, body: batch(reports) };
    }
    case 'security report': {
      const report = field.name === 'type' ? { type: value } : violation({ [field.name]: { 'blocked-uri': value } });
      const reports = Array.from({ length: copies }, () => (copies > 1 ? violation({ url: value }) : report));
      return { path: securityPath({}), headers: reportHeaders, body: batch(reports) };
    }
    case 'tunnel envelope header':
      return {
        path: '/monitoring',
        headers: forwarded,
        body: event({ [field.name]: value }, ['{"type":"event"}', '{}']),
      };
    case 'tunnel item header': {
      const line = JSON.stringify(field.name === 'type' ? { type: value } : { type: 'event', [field.name]: value });
      const items = Array.from({ length: copies }, () => `${line}\n{}`);
      return { path: '/monitoring', headers: forwarded, body: event({}, items) };
    }
    case 'tunnel payload':
      return {
        path: '/monitoring',
        headers: forwarded,
        body: event({}, ['{"type":"event"}', JSON.stringify({ message: value })]),
      };
    default:
      throw new Error(`no request for ${field.route} ${field.place}: add a case to requestFor`);
  }
}

/** Just inside the limit that would refuse the request before the field's own rule runs. */
const INSIDE: Record<Field['place'], number> = {
  'HTTP header': 15 * KiB, // Node's header limit is 16 KiB in all
  query: 15 * KiB,
  'envelope header': 60 * KiB, // the header line's 64 KiB
  'item header': 7 * KiB, // the item header line's 8 KiB
  payload: 64 * KiB,
  report: 64 * KiB,
};
const ALPHABETS = [
  ['"<"', '<'],
  ['U+0001', '\u0001'],
] as const;

interface Case {
  name: string;
  field: Field;
  request: RawRequest;
}
const cases: Case[] = FIELDS.flatMap((field) =>
  ALPHABETS.flatMap(([alphabet, char]) => {
    // HTTP forbids control characters in header values and the URL: the server refuses them before any route.
    const size = (n: number) => char.repeat(n);
    const label = `${field.route} ${field.place} ${field.name}`;
    const out: Case[] = [
      { name: `${label}: 64 KiB of ${alphabet}`, field, request: requestFor(field, size(64 * KiB)) },
      {
        name: `${label}: ${INSIDE[field.place] / KiB} KiB of ${alphabet}`,
        field,
        request: requestFor(field, size(INSIDE[field.place])),
      },
    ];
    if (field.multiplied) {
      out.push({
        name: `${label}: 4 KiB of ${alphabet} × 1000`,
        field,
        request: requestFor(field, size(4 * KiB), 1000),
      });
    }
    return out;
  }),
);

async function memoryHeld(): Promise<number> {
  const text = await (await fetch(`${relay.url}/metrics`)).text();
  return Number(/^relay_memory_held_bytes (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
}

describe('every field a client chooses, at 64 KiB and 1000 times (request-inventory.ts)', () => {
  it.each(cases)('$name: a bounded 4xx or a bounded 200', async ({ request }) => {
    const answer = await send(request);
    // A refusal before the whole body (or header block) was read closes the connection; the client may see that as
    // a reset before it reads the answer (as relay-hostile.test.ts counts it). Never a 5xx, and the relay lives on.
    const clean = answer.status === 'reset' || answer.status === 200 || (answer.status >= 400 && answer.status < 500);
    expect(clean, `status ${answer.status}`).toBe(true);
    expect(answer.bodyBytes).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    expect((await fetch(`${relay.url}/readyz`)).status).toBe(200);
  });

  it('wrote no log line over 8 KiB and gave the memory budget back', async () => {
    const longest = Math.max(...relay.logs.map((line) => Buffer.byteLength(JSON.stringify(line))));
    expect(longest).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
    await expect.poll(memoryHeld, { timeout: 5_000 }).toBe(0);
    expect(relay.logs.length).toBeGreaterThan(cases.length / 2); // the refusals were logged, so the check saw them
  });
});

describe("README's table of what a client may send", () => {
  it('lists every field of request-inventory.ts', () => {
    const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    const missing = FIELDS.filter(
      (field) =>
        !readme.includes(`| ${field.route} | ${field.place} | \`${field.name}\`${field.multiplied ? ' ×' : ''} |`),
    );
    expect(missing.map((field) => `${field.route} ${field.place} ${field.name}`)).toEqual([]);
  });
});

describe('Object.prototype names are plain strings (no prototype lookups)', () => {
  const names = Object.getOwnPropertyNames(Object.prototype);
  it.each(names)('%s as item type, DSN part, header name, envelope header key and query key', async (name) => {
    const answers = await Promise.all([
      send({ path: '/monitoring', headers: forwarded, body: event({}, [`{"type":"${name}"}`, '{}']) }),
      send({ path: '/monitoring', headers: forwarded, body: event({ dsn: `https://${name}@o1.example/1` }, []) }),
      send({ path: '/monitoring', headers: forwarded, body: event({ dsn: dsn.replace('/42', `/${name}/42`) }, []) }),
      send({
        path: '/monitoring',
        headers: { ...forwarded, [name]: 'x' },
        body: event({}, ['{"type":"event"}', '{}']),
      }),
      send({ path: '/monitoring', headers: forwarded, body: event({ [name]: 1 }, ['{"type":"event"}', '{}']) }),
      send({
        path: `${securityPath({ [name]: 'x' })}`,
        headers: reportHeaders,
        body: batch([violation()]),
      }),
    ]);
    // The item type is forwarded like any unknown type; a DSN naming it is not allowed; the rest is ignored.
    expect(answers.map(({ status }) => status)).toEqual([200, 403, 403, 200, 200, 200]);
  });
});
