// A failure of the relay itself (a bug), on the tunnel and on a Fastify route: a 500 saying nothing internal, one
// error line with the request id and the error, and the count in relay_envelopes_rejected_total{reason="internal"}.
// The fault is injected through JSON.parse, which both routes call on what the client sent.
import { type CaptureServer, startCaptureServer } from '@app/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import { closeAfterTest, closeOpened, post, type RunningRelay, removeTempDirs, startRelay } from './helpers.ts';

/** JSON.parse as it is before a test injects its fault, for the test's own parsing. */
const parseJson = JSON.parse;
/** A text naming this is parsed into a value that throws when the relay reads it, as a bug in the relay would. */
const FAULT = 'x_injected_fault';
let capture: CaptureServer;
let dsn: string;
let fault: MockInstance<typeof JSON.parse> | undefined;

beforeAll(async () => {
  capture = await startCaptureServer();
  dsn = capture.dsn({ projectId: '42', publicKey: 'abc' });
});
afterEach(async () => {
  fault?.mockRestore();
  await closeOpened();
});
afterAll(async () => {
  await capture?.close();
  removeTempDirs();
});

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
  const relay = closeAfterTest(await startRelay({ ALLOWED_DSNS: dsn, LOG_LEVEL: 'info' }, { logStream }));
  return { relay, lines };
}

async function internalErrors(relay: RunningRelay): Promise<number> {
  const text = await (await fetch(`${relay.url}/metrics`)).text();
  return Number(text.match(/relay_envelopes_rejected_total\{reason="internal"\} (\d+)/)?.[1] ?? 0);
}

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
    expect(await internalErrors(relay)).toBe(0);
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
    expect(await internalErrors(relay)).toBe(1);
  });

  it('on the tunnel: the same line and counter', async () => {
    const { relay, lines } = await loggedRelay();
    injectFault({}, 'dsn');
    const response = await post(relay.tunnel, `{"dsn":"${dsn}","${FAULT}":1}\n{"type":"event"}\n{}`);
    fault?.mockRestore();
    expect(response.status).toBe(500);
    expect(response.json).toEqual({ error: 'internal', detail: 'the relay failed to handle this envelope' });
    expectOneErrorLine(lines, response.headers.get('x-request-id'), 'tunnel request failed');
    expect(await internalErrors(relay)).toBe(1);
  });
});
