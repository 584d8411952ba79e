// The relay's entry point: configuration, the app, then listening until a signal; a failed start exits saying why.
import { exitOnConfigError, runService } from '@app/service-kit';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';

const config = exitOnConfigError('telemetry-relay', () => loadConfig(process.env));
const { app, readiness, projects } = await buildApp(config).catch((error: Error & { code?: string }) => {
  // Cannot start (the spool directory is unwritable or held by another relay): one JSON line saying why, exit 1.
  process.stderr.write(
    `${JSON.stringify({ level: 60, time: new Date().toISOString(), service: 'telemetry-relay', code: error.code, msg: `cannot start: ${error.message}` })}\n`,
  );
  process.exit(1);
});
// SIGHUP reads PROJECTS_FILE again (as the directory watch does): applied, or refused with the old projects kept.
process.on('SIGHUP', () => projects.reload('SIGHUP'));
await runService(app, { config: config.server, readiness, ownSignals: ['SIGHUP'] });
