// The tunnel most projects copy from documentation and blog posts: node:http, the body read as text, split into
// lines, the header JSON.parsed for its DSN, a host check, and the global fetch() upstream. Kept only as the
// benchmark's baseline; it has every problem the relay exists to avoid (binary payloads mangled, no limits, no
// filtering, a 5xx loses the report).
import { createServer } from 'node:http';

const allowedHost = process.env.ALLOWED_HOST ?? '127.0.0.1';

const server = createServer(async (req, res) => {
  if (req.method !== 'POST' || req.url !== '/monitoring') {
    res.writeHead(404).end();
    return;
  }
  try {
    let envelope = '';
    req.setEncoding('utf8');
    for await (const chunk of req) envelope += chunk;
    const pieces = envelope.split('\n');
    const header = JSON.parse(pieces[0] ?? '') as { dsn: string };
    const dsn = new URL(header.dsn);
    if (dsn.hostname !== allowedHost) throw new Error(`invalid host: ${dsn.hostname}`);
    const projectId = dsn.pathname.replace(/^\//, '');
    const upstream = `http://${dsn.host}/api/${projectId}/envelope/?sentry_key=${dsn.username}`;
    const response = await fetch(upstream, {
      method: 'POST',
      body: envelope,
      headers: { 'Content-Type': 'application/x-sentry-envelope' },
    });
    res.writeHead(response.status, { 'content-type': 'application/json' }).end(await response.text());
  } catch (error) {
    res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(error) }));
  }
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : ''}\n`);
});
process.on('SIGTERM', () => process.exit(0));
