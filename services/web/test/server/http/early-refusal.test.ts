// Answers sent before the request's body arrived: a form body over its limit (413) and a path that does not decode
// (the router's 400, quoting 64 characters of it); a client still uploading reads them, not a reset (decision 039).
import { chunksOf, getAsWritten, uploadThenRead } from '@app/test-kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { withWeb } from '../../with-web.ts';

const MiB = 1024 * 1024;
const web = withWeb({}, { listen: true });
let port: number;
beforeAll(() => ({ port } = web));

const formHead = (length: number) =>
  `POST /preferences HTTP/1.1\r\nhost: 127.0.0.1\r\norigin: http://127.0.0.1:${port}\r\n` +
  `content-type: application/x-www-form-urlencoded\r\ncontent-length: ${length}\r\n\r\n`;

describe('a form body over the 64 KiB limit', () => {
  it('is answered 413, and a client writing all of it before reading reads the answer', async () => {
    // More than loopback's socket buffers hold, so the client is still writing when the answer is out.
    const exchange = await uploadThenRead(port, formHead(16 * MiB), chunksOf(16 * MiB));
    expect(exchange.error).toBeUndefined();
    expect(exchange.written).toBe(16 * MiB);
    expect(exchange.read).toMatch(/^HTTP\/1\.1 413 /);
  });
});

describe('a path that does not decode', () => {
  it.each([`/%zz${'a'.repeat(15_000)}`, `/catalog/%C0%AF${'b'.repeat(15_000)}`])(
    'is a 400 quoting 64 characters of it (%#)',
    async (path) => {
      const answer = await getAsWritten(`http://127.0.0.1:${port}${path}`);
      expect(answer.status).toBe(400);
      expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(answer.body.length).toBeLessThan(400);
      const { code, message } = JSON.parse(answer.body);
      expect(code).toBe('FST_ERR_BAD_URL');
      expect(message).toContain(`${JSON.stringify(path.slice(0, 64))}… (${path.length} characters) is not a valid URL`);
    },
  );

  it('lets a client still uploading read the 400, then closes', async () => {
    const head = `POST /%zz HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${16 * MiB}\r\n\r\n`;
    const exchange = await uploadThenRead(port, head, chunksOf(16 * MiB));
    expect(exchange.error).toBeUndefined();
    expect(exchange.read).toMatch(/^HTTP\/1\.1 400 /);
    expect(exchange.read).toMatch(/\r\nconnection: close\r\n/i);
  });
});
