import { exitOnConfigError, runService } from '@app/service-kit';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';

const config = exitOnConfigError('telemetry-relay', () => loadConfig(process.env));
const { app, readiness } = await buildApp(config);
await runService(app, { config: config.server, readiness });
