// A failure of the relay itself (a bug), on the tunnel and on a Fastify route: a 500 saying nothing internal, one
// error line with the request id and the error, and the count in relay_envelopes_rejected_total{reason="internal"}.
// A client still uploading reads the 500. The fault is injected through JSON.parse, called on what the client sent.
import { chunksOf, eventually, post, uploadThenRead } from '@app/test-kit';
import { afterEach, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import { type RunningRelay, withUpstream } from '../with-relay.ts';

const MiB = 1024 * 1024;
/** JSON.parse as it is before a test injects its fault, for the test's own parsing. */
const parseJson = JSON.parse;
/** A text naming this is parsed into a value that throws when the relay reads it, as a bug in the relay would. */
const FAULT = 'x_injected_fault';
const upstream = withUpstream();
const { relayWith } = upstream;
let dsn: string;
beforeAll(() => ({ dsn } = upstream));
let fault: MockInstance<typeof JSON.parse> | undefined;
afterEach(() => fault?.mockRestore());

/** JSON.parse of a text naming FAULT gives `target`, whose `property` throws when read. */
function injectFault(target: object, property: string): void {
  fault = vi.spyOn(JSON, 'parse').mockImplementation((text, reviver) =>
    typeof text === 'string' && text.includes(FAULT)
      ? new Proxy(target, {
          get(object, key) {
            if (key === property) throw new TypeError('injected fault');
            return Reflect.get(object, key);
          },
        })
      : parseJson(text, reviver),
  );
}

interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
  err?: { type: string; message: string; stack: string };
}

/** The relay on a loopback port, its log lines kept. */
async function loggedRelay(): Promise<{ relay: RunningRelay; lines: LogLine[] }> {
  const lines: LogLine[] = [];
  const logStream = { write: (line: string) => lines.push(parseJson(line) as LogLine) };
  const relay = await relayWith({ LOG_LEVEL: 'info' }, { logStream });
  return { relay, lines };
}

/** A series' value on the relay's /metrics (0 when absent), e.g. `relay_refusal_lingers_total{end="client"}`. */
async function counted(relay: RunningRelay, series: string): Promise<number> {
  const text = await (await fetch(`${relay.url}/metrics`)).text();
  const line = text.split('\n').find((entry) => entry.startsWith(`${series} `));
  return Number(line?.slice(series.length + 1) ?? 0);
}
const INTERNAL = 'relay_envelopes_rejected_total{reason="internal"}';

/** The request's lines: exactly one, at error level, with the error. */
function expectOneErrorLine(lines: LogLine[], requestId: string | null | undefined, msg: string): void {
  expect(requestId).toMatch(/^[\w.:-]+$/);
  const own = lines.filter((line) => line.requestId === requestId);
  expect(own).toHaveLength(1);
  expect(own[0]).toMatchObject({ level: 50, msg, err: { type: 'TypeError', message: 'injected fault' } });
  expect(own[0]?.err?.stack).toContain('TypeError: injected fault');
}

describe('a failure of the relay itself', () => {
  it('on the CSP route: a 500 saying nothing internal, one error line with the request id, counted', async () => {
    const { relay, lines } = await loggedRelay();
    expect(await counted(relay, INTERNAL)).toBe(0);
    injectFault([], 'filter');
    const response = await post(
      `${relay.url}/monitoring/security?${new URLSearchParams({ dsn })}`,
      JSON.stringify([{ type: 'csp-violation', body: { marker: FAULT } }]),
      { 'content-type': 'application/reports+json' },
    );
    fault?.mockRestore();
    expect(response.status).toBe(500);
    expect(response.json).toEqual({ error: 'internal', detail: 'the relay failed to handle this request' });
    expect(response.headers.get('retry-after')).toBeNull();
    expectOneErrorLine(lines, response.headers.get('x-request-id'), 'request failed');
    expect(lines.find((line) => line.level === 50)).toMatchObject({ route: '/monitoring/security' });
    expect(await counted(relay, INTERNAL)).toBe(1);
  });

  it('on the tunnel: the same line and counter', async () => {
    const { relay, lines } = await loggedRelay();
    injectFault({}, 'dsn');
    const response = await post(relay.tunnel, `{"dsn":"${dsn}","${FAULT}":1}\n{"type":"event"}\n{}`);
    fault?.mockRestore();
    expect(response.status).toBe(500);
    expect(response.json).toEqual({ error: 'internal', detail: 'the relay failed to handle this envelope' });
    expectOneErrorLine(lines, response.headers.get('x-request-id'), 'tunnel request failed');
    expect(await counted(relay, INTERNAL)).toBe(1);
  });

  it('on the tunnel, before the body has arrived: a client still uploading reads the 500, then the relay closes', async () => {
    const { relay } = await loggedRelay();
    injectFault({}, 'dsn');
    const line = `{"dsn":"${dsn}","${FAULT}":1}\n{"type":"attachment","length":${16 * MiB}}\n`;
    const url = new URL(relay.tunnel);
    const head = `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-length: ${line.length + 16 * MiB}\r\n\r\n`;
    const exchange = await uploadThenRead(Number(url.port), head + line, chunksOf(16 * MiB));
    fault?.mockRestore();
    expect(exchange.error).toBeUndefined();
    expect(exchange.read).toMatch(/^HTTP\/1\.1 500 /);
    expect(exchange.read).toMatch(/\r\nconnection: close\r\n/i);
    expect(exchange.read).toContain('"error":"internal"');
    const lingered = 'relay_refusal_lingers_total{end="client"}';
    await eventually(async () => (await counted(relay, lingered)) === 1, 3000, 'the linger to be counted');
  });
});
