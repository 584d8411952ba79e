// A path that does not decode (Fastify's router refuses it before any hook): a 400 quoting at most 64 characters of
// it, in the answer and the one log line, with the request id; a client still uploading reads it, the linger counted.
import {
  chunksOf,
  closeAfterTest,
  closeOpened,
  eventually,
  getAsWritten,
  removeTempDirs,
  uploadThenRead,
} from '@app/test-kit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startRelay } from '../with-relay.ts';

const MiB = 1024 * 1024;
const env = { ALLOWED_DSNS: 'http://abc@127.0.0.1:9/42', UPSTREAM_URL: 'http://127.0.0.1:9/', LOG_LEVEL: 'info' };
afterEach(closeOpened);
afterAll(removeTempDirs);

describe('a path that does not decode', () => {
  it.each([
    ['an unknown path', `/%zz${'a'.repeat(15_000)}`],
    ['below the CSP path', `/monitoring/security/%zz${'a'.repeat(15_000)}`],
  ])('%s: a 400 and a log line quoting 64 characters of it', async (_name, path) => {
    const lines: Array<Record<string, unknown>> = [];
    const logStream = { write: (line: string) => lines.push(JSON.parse(line)) };
    const relay = closeAfterTest(await startRelay(env, { logStream }));
    const answer = await getAsWritten(`${relay.url}${path}`);
    expect(answer.status).toBe(400);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.body.length).toBeLessThan(400);
    expect(JSON.parse(answer.body)).toEqual({
      statusCode: 400,
      code: 'FST_ERR_BAD_URL',
      error: 'Bad Request',
      message: `the path ${JSON.stringify(path.slice(0, 64))}… (${path.length} characters) is not a valid URL: a % in it is not followed by two hex digits, or its %-escapes are not UTF-8`,
    });
    const own = lines.filter((line) => line.requestId === answer.headers['x-request-id']);
    expect(own).toHaveLength(1);
    expect(own[0]).toMatchObject({ level: 30, msg: 'request refused by the router', status: 400 });
    expect(JSON.stringify(own[0]).length).toBeLessThan(1024);
  });

  it('lets a client still uploading read the 400, then closes and counts the linger', async () => {
    const relay = closeAfterTest(await startRelay({ ...env, LOG_LEVEL: 'silent' }));
    const { host, port } = new URL(relay.url);
    const head = `POST /%zz HTTP/1.1\r\nhost: ${host}\r\ncontent-length: ${16 * MiB}\r\n\r\n`;
    const exchange = await uploadThenRead(Number(port), head, chunksOf(16 * MiB));
    expect(exchange.error).toBeUndefined();
    expect(exchange.read).toMatch(/^HTTP\/1\.1 400 /);
    expect(exchange.read).toMatch(/\r\nconnection: close\r\n/i);
    const lingers = async () =>
      (await (await fetch(`${relay.url}/metrics`)).text()).includes('relay_refusal_lingers_total{end="client"} 1');
    await eventually(lingers, 3000, 'the linger to be counted');
  });
});
