// What the Lighthouse benchmark and its main-thread task trace share: the pages, and a production build served with
// Sentry on, reporting to a capture server (ours, or LIGHTHOUSE_BASELINE's: another checkout's services/web, built).
import { join } from 'node:path';
import { type CaptureServer, type ServiceProcess, spawnService } from '@app/test-kit';

/** Every page of the example product; PAGES (comma-separated paths) narrows a run to some of them. */
export const PAGES = process.env.PAGES?.split(',') ?? ['/', '/catalog', '/catalog/amber-lamp', '/preferences'];

/** `node --import instrument.js main.js` of the build in `dir` (a services/web folder), as in production. */
export function startWebBuild(dir: string, capture: CaptureServer): Promise<ServiceProcess> {
  return spawnService(join(dir, 'dist/server/main.js'), {
    cwd: dir,
    env: {
      NODE_OPTIONS: `--import ${join(dir, 'dist/server/instrument.js')}`,
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      SENTRY_DSN: capture.dsn(),
      TUNNEL_TARGET: capture.envelopeUrl(),
    },
  });
}
