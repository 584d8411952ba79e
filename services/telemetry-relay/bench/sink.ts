// The upstream for the benchmark: answers every envelope with 200 {} as soon as its body has arrived, records
// nothing (the capture server records everything, which would make the upstream the thing measured).
import { createServer } from 'node:http';

let received = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET') {
    // GET /count: envelopes received so far (how the benchmark checks what actually went upstream).
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received }));
    return;
  }
  received++;
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '2' }).end('{}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : ''}\n`);
});
process.on('SIGTERM', () => process.exit(0));
