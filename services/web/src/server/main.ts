// Production entry (dist/server/main.js): config → app → listen → graceful shutdown. Started as
// `node --import ./dist/server/instrument.js ./dist/server/main.js` so Sentry instruments Fastify before it loads.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitOnConfigError, runService } from '@app/service-kit';
import * as Sentry from '@sentry/node';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { acceptOnMoreSockets } from './http/acceptors.ts';
import { assetsFromManifest } from './pages/assets.ts';

const config = exitOnConfigError('web', () => loadConfig(process.env));
// dist/server/main.js → dist/client
const clientDir = join(dirname(fileURLToPath(import.meta.url)), '../client');
const { app, readiness } = await buildApp(config, {
  assets: assetsFromManifest(join(clientDir, '.vite/manifest.json')),
  clientDir,
});
app.addHook('onClose', async () => {
  await Sentry.flush(2_000);
});
const acceptors = acceptOnMoreSockets(app.server, {
  sockets: config.acceptSockets,
  maxConnections: config.connections.maxConnections,
  onError: (err) => app.log.warn({ err }, 'an extra listening socket failed; accepting on the others'),
});
app.addHook('preClose', async () => acceptors.close());
await runService(app, { config: config.server, readiness, reusePort: config.acceptSockets > 1 });
