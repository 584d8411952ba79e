// The fixture app's front door, as an ingress routes a site: the checkout page and its bundled script, the
// same-origin tunnel path forwarded to the web service's tunnel (on to the relay), and everything else to the Node
// app (server.ts). Kept out of the Node app so the app's SDK sees only the app's requests, not the tunnel's bodies.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';

export interface FrontOptions {
  /** The bundled page script (bundle.ts). */
  bundle: string;
  /** The DSN the page's SDK reports under. */
  dsn: string;
  /** The web service: POST /monitoring goes to its tunnel path (`webTunnelPath`, derived from the DSN by default). */
  webUrl: string;
  webTunnelPath: string;
  /** The Node app: every other request. */
  appUrl: string;
}

export interface Front {
  url: string;
  close(): Promise<void>;
}

const page = (dsn: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Checkout</title>
<script>window.__fixture = ${JSON.stringify({ dsn, release: 'sdk-defaults-page@e2e' })};</script>
<script type="module" src="/app.js"></script></head>
<body><h1>Checkout</h1>
<form method="post" action="/api/checkout">
<label>E-mail <input id="email" name="email" type="email"></label>
<label>Card <input id="card" name="card" autocomplete="cc-number"></label>
<label>Password <input id="password" name="password" type="password"></label>
<button id="pay" type="submit">Pay</button>
</form></body></html>`;

/** Streams the request (its body read from `body`) to `target` with its headers, and the answer back. */
export function forward(req: IncomingMessage, res: ServerResponse, target: URL, body: Readable = req): void {
  const upstream = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  body.pipe(upstream);
}

export async function startFront(options: FrontOptions): Promise<Front> {
  const script = readFileSync(options.bundle);
  const html = page(options.dsn);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://front').pathname;
    if (req.method === 'GET' && path === '/checkout') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    } else if (req.method === 'GET' && path === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    } else if (path === '/monitoring') {
      forward(req, res, new URL(`${options.webTunnelPath}${req.url?.slice(path.length) ?? ''}`, options.webUrl));
    } else {
      forward(req, res, new URL(req.url ?? '/', options.appUrl));
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
