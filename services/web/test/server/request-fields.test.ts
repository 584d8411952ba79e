// Generated from request-fields.ts (issue 24.6): each field the service reads, sent at 64 KiB, at 15 KiB (under
// Node's 16 KiB header limit and the 64 KiB form limit, so it reaches the code) and, where the code splits or repeats
// it, 1 000 times over; through a real socket and through inject() (past Node's parser, as if its header limit were
// raised). Each answer is a bounded 4xx or a bounded acceptance: no 5xx, at most 8 KiB more than the same request with
// a one-character value, and no log line over 8 KiB.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { WebApp } from '../../src/server/app.ts';
import { testApp } from '../with-web.ts';
import { type FieldRequest, REQUEST_FIELDS, type RequestField } from './request-fields.ts';

const KiB = 1024;
const MAX_LOG_LINE = 8 * KiB;
const MAX_GROWTH = 8 * KiB;

interface Running {
  web: WebApp;
  port: number;
  lines: string[];
}
const running = new Map<string, Promise<Running>>();
afterAll(async () => {
  for (const started of running.values()) await (await started).web.app.close();
});

/** One service per environment, logging every request (LOG_SAMPLE_EVERY=1) into `lines`. */
function serviceFor(env: Record<string, string> = {}): Promise<Running> {
  const key = JSON.stringify(env);
  let started = running.get(key);
  if (!started) {
    started = (async () => {
      const lines: string[] = [];
      const logStream = new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      });
      const web = await testApp({ LOG_LEVEL: 'info', LOG_SAMPLE_EVERY: '1', ...env }, { logStream });
      await web.app.listen({ port: 0, host: '127.0.0.1' });
      return { web, port: (web.app.server.address() as AddressInfo).port, lines };
    })();
    running.set(key, started);
  }
  return started;
}

interface Answer {
  status: number;
  bytes: number;
}

async function injected(service: Running, req: FieldRequest): Promise<Answer> {
  const res = await service.web.app.inject({
    method: req.method,
    url: req.url,
    headers: req.headers,
    ...(req.body === undefined ? {} : { payload: req.body }),
  });
  return { status: res.statusCode, bytes: res.rawPayload.length };
}

function overSocket(service: Running, req: FieldRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = request({
      host: '127.0.0.1',
      port: service.port,
      // A connection of its own: one the server closed after a 431 must not be reused.
      agent: false,
      method: req.method,
      path: req.url,
      headers: req.headers,
    });
    sent.on('response', (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
    });
    // The server may answer 413/431 and close before the whole request is written.
    sent.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' ? resolve({ status: 400, bytes: 0 }) : reject(error),
    );
    sent.end(req.body);
  });
}

const variants = (row: RequestField) => [
  ['64 KiB', 'a'.repeat(64 * KiB)] as const,
  ['15 KiB', 'a'.repeat(15 * KiB)] as const,
  ...(row.repeated ? [['1 000 × ' + JSON.stringify(row.repeated), row.repeated.repeat(1_000)] as const] : []),
];
const cases = REQUEST_FIELDS.flatMap((row) =>
  variants(row).map(([size, value]) => [row.field, size, row, value] as const),
);

describe.each([
  ['over a socket', overSocket],
  ['injected (past the HTTP parser)', injected],
] as const)('every request field, %s', (_, send) => {
  it.each(cases)('%s at %s: bounded answer, bounded logs', async (_field, _size, row, value) => {
    const service = await serviceFor(row.env);
    const baseline = await send(service, row.request('a'));
    service.lines.length = 0;
    const answer = await send(service, row.request(value));
    // The request log line is written when the response has finished.
    await new Promise((resolve) => setImmediate(resolve));
    expect(answer.status, 'no 5xx').toBeLessThan(500);
    expect(answer.bytes - baseline.bytes, 'response growth').toBeLessThanOrEqual(MAX_GROWTH);
    const longest = Math.max(0, ...service.lines.map((line) => line.length));
    expect(longest, 'longest log line').toBeLessThanOrEqual(MAX_LOG_LINE);
  });
});

describe('the inventory', () => {
  it("lists the same fields as docs/web.md's table, in the same order", () => {
    const doc = readFileSync(new URL('../../../../docs/web.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## What the service reads from a request'));
    const table = section.slice(0, section.indexOf('\n## ') === -1 ? undefined : section.indexOf('\n## '));
    const rows = [...table.matchAll(/^\| ([^|]+?) \|/gm)]
      .map((m) => m[1])
      .filter((f) => f !== 'Field' && !f?.startsWith('-'));
    expect(rows).toEqual(REQUEST_FIELDS.map((row) => row.field));
  });
});
