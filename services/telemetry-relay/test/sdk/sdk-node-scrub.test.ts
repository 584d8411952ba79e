// The real @sentry/node SDK, a real HTTP server whose request carried an Authorization header and a session cookie,
// through the relay with its default scrubbing. @sentry/node 11's requestData integration already filters those two
// headers itself, so the app here attaches the raw request as apps (and SDKs before v8) do, in an event processor.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as Sentry from '@sentry/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRelay } from '../with-relay.ts';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXVzZXI.sig-4f2a';
const SESSION = 's%3AaXf93kQ-session-value';
const under = withRelay({}, { projectId: '12', publicKey: 'nodescrub' });
let server: Server;
let eventId: string | undefined;

beforeAll(async () => {
  const { dsn, relay } = under;
  Sentry.init({ dsn, tunnel: relay.tunnel, release: 'scrub-test@1', defaultIntegrations: false });
  server = createServer((req: IncomingMessage, res) => {
    try {
      throw new Error('order service failed');
    } catch (error) {
      eventId = Sentry.withScope((scope) => {
        scope.addEventProcessor((event) => ({
          ...event,
          request: {
            method: req.method ?? 'GET',
            url: `http://${req.headers.host}${req.url}`,
            headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
          },
        }));
        return Sentry.captureException(error);
      });
      res.writeHead(500).end('failed');
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});
afterAll(async () => {
  server?.close();
  await Sentry.close(2000);
});

describe('@sentry/node: a server error with credentials in its request', () => {
  it('arrives upstream without the bearer token, the session cookie or the query password', async () => {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/orders?id=7&password=hunter2`, {
      headers: { authorization: `Bearer ${TOKEN}`, cookie: `theme=dark; sessionid=${SESSION}` },
    });
    expect(response.status).toBe(500);
    await Sentry.flush(2000);
    const arrived = await under.capture.waitFor((e) => e.header.event_id === eventId);
    const text = arrived.body.toString('utf8');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(SESSION);
    expect(text).not.toContain('hunter2');
    const event = arrived.items[0]?.json as { request: { headers: Record<string, string>; url: string } } | undefined;
    const request = event?.request ?? { headers: {}, url: '' };
    expect(request.headers.authorization).toBe('[Filtered]');
    expect(request.headers.cookie).toBe('theme=dark; sessionid=[Filtered]');
    expect(request.url).toMatch(/\/orders\?id=7&password=\[Filtered\]$/);
    expect(text).toContain('order service failed'); // exception values are left alone, as Relay does
  });
});
