// The capture server as a process (for containers): PORT (default 8000), HOST (default 0.0.0.0), control API on.
import { startCaptureServer } from './capture-server.ts';

const port = Number(process.env.PORT ?? 8000);
const server = await startCaptureServer({ port, host: process.env.HOST ?? '0.0.0.0', control: true });
process.stdout.write(`${JSON.stringify({ level: 30, msg: `Server listening at http://127.0.0.1:${server.port}` })}\n`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
