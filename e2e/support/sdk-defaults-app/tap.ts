// A hop that forwards every request to a target as it is and keeps a copy of each body, decompressed: what an SDK
// sent, to hold against what upstream received. The Node SDK gzips larger envelopes (content-encoding: gzip).
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { forward } from './front.ts';

export interface Tap {
  url: string;
  /** Every request body so far, decompressed. */
  bodies: Buffer[];
  close(): Promise<void>;
}

export async function startTap(target: string): Promise<Tap> {
  const bodies: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const copy = new PassThrough();
    copy.on('data', (chunk: Buffer) => chunks.push(chunk));
    copy.on('end', () => {
      const body = Buffer.concat(chunks);
      bodies.push(req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body);
    });
    forward(req, res, new URL(req.url ?? '/', target), req.pipe(copy));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
