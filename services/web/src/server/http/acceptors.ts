// More listening sockets on the server's port (SO_REUSEPORT), each handing what it accepts to the same HTTP server.
// libuv (since 1.45, Node 20) accepts ONE connection per listening socket per loop turn, and a turn of synchronous
// pages renders every request read in it: with k connections served a turn lasts k pages, so the n-th of a crowd of
// new connections waits about n²/2 pages in the kernel's accept queue (100 connections × 1.9 ms: ≈ 9.5 s). With N
// sockets the kernel spreads new connections over N queues and a turn accepts up to N (64: ≈ 0.8 s for 100)
// (docs/decisions/031-accept-on-more-sockets.md).
import { createServer, type Server, type Socket } from 'node:net';

export interface Acceptors {
  /** Stops the extra sockets listening (connections they handed over stay with the server). */
  close(): void;
}

/**
 * Once `server` listens (it must listen with `reusePort: true`), opens `sockets - 1` more listeners on its address.
 * MAX_CONNECTIONS stays one bound over all of them: the server's own cap shrinks by what the others hold.
 */
export function acceptOnMoreSockets(
  server: Server,
  options: { sockets: number; maxConnections: number; onError: (err: Error) => void },
): Acceptors {
  const { sockets, maxConnections, onError } = options;
  const extra: Server[] = [];
  if (sockets <= 1) return { close() {} };
  let live = 0; // every connection the server holds, whichever socket accepted it
  let handed = 0; // those the extra sockets accepted
  server.on('connection', (socket) => {
    live++;
    socket.once('close', () => live--);
  });
  // net's own check counts only the server's own connections (0: it refuses every one).
  const capOwn = () => {
    server.maxConnections = Math.max(0, maxConnections - handed);
  };
  const handOver = (socket: Socket) => {
    if (live >= maxConnections) {
      socket.destroy();
      return;
    }
    handed++;
    capOwn();
    socket.once('close', () => {
      handed--;
      capOwn();
    });
    server.emit('connection', socket);
  };
  server.once('listening', () => {
    const address = server.address();
    if (address === null || typeof address === 'string') return;
    for (let i = 1; i < sockets; i++) {
      const listener = createServer(handOver);
      // One socket fewer is no failure: the server still accepts on its own.
      listener.on('error', onError);
      listener.listen({ port: address.port, host: address.address, reusePort: true });
      extra.push(listener);
    }
  });
  return {
    close() {
      for (const listener of extra) listener.close();
    },
  };
}
