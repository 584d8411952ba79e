// The fixture app's API on @sentry/node 11 (instrument.ts, loaded with `node --import`), a real process on loopback
// behind the front door (front.ts): its checkout fails with the customer's data in its error, log and span, as app
// code does. POST /__flush makes the SDK send what it holds, so the test need not wait for its timers.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import * as Sentry from '@sentry/node';

/** With 'data' listeners, as body parsers read (the SDK records an incoming body from them). */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The payment provider refuses, and the app reports it with everything it knows. */
async function checkout(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = new URLSearchParams((await readBody(req)).toString('utf8'));
  const card = form.get('card') ?? '';
  const email = form.get('email') ?? '';
  const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
  Sentry.getActiveSpan()?.setAttribute('app.auth_token', token);
  Sentry.logger.error(Sentry.logger.fmt`charge refused for ${email} with card ${card}`, {
    'payment.card': card,
    'customer.email': email,
  });
  Sentry.captureException(new Error(`charge refused for card ${card}, receipt to ${email}`));
  res.writeHead(402, { 'content-type': 'application/json' }).end('{"error":"payment refused"}');
}

async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://app').pathname;
  if (req.method === 'POST' && path === '/api/checkout') {
    await checkout(req, res);
  } else if (req.method === 'POST' && path === '/__flush') {
    await Sentry.flush(5_000);
    res.writeHead(204).end();
  } else {
    res.writeHead(404).end();
  }
}

const server = createServer((req, res) => {
  route(req, res).catch((error: unknown) => {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(error));
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  // The line spawnService waits for.
  console.log(JSON.stringify({ msg: `Server listening at http://127.0.0.1:${port}` }));
});
