// More listening sockets on the server's port (SO_REUSEPORT), all handing connections to one HTTP server: libuv
// accepts one connection per listening socket per loop turn, so behind turns of synchronous pages a crowd of new
// connections waited seconds in the kernel; N sockets accept up to N a turn (decision 031 has the arithmetic).
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
