// Serves the cross-origin page (page.ts, bundled) on a loopback port of its own: its origin is not the relay's.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PageServer {
  /** http://127.0.0.1:<port>, the page's origin. */
  origin: string;
  close(): Promise<void>;
}

/** The page reads its settings from window.__relayTest, which the test sets in an init script. */
export async function servePage(bundle: string): Promise<PageServer> {
  const script = readFileSync(bundle);
  const html = '<!doctype html><title>cross-origin</title><script type="module" src="/app.js"></script>';
  const server = createServer((req, res) => {
    if (req.url === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
