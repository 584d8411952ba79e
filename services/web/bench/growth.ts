// `npm run bench:growth -w @app/web`: how the web service's cost grows with the work (issue 26, point 3). Two sweeps,
// each printed as a Markdown table (every figure beside its growth against the first row) and a Mermaid chart:
// - list size: `/catalog?limit=` 10, 50, 500 against React Router's `react-router-serve` at the same sizes
//   (growth-size.ts);
// - concurrency: 10, 100, 1 000 connections to the web image at its pod's CPU and memory limits with load shedding
//   as deployed (growth-concurrency.ts).
//
// Env: GROWTH_SWEEPS (`size,concurrency`), GROWTH_ROUNDS (3), GROWTH_SECONDS (5; the concurrency sweep's steps
// GROWTH_CONCURRENCY_SECONDS, 10), WEB_IMAGE (an image to run instead of building this tree's as
// ssr-telemetry/web:$E2E_IMAGE_TAG, default tag `bench`), NODE_IMAGE (the base the Dockerfile builds from).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildImage, startCaptureServer } from '@app/test-kit';
import { concurrencySweep } from './growth-concurrency.ts';
import { sizeSweep } from './growth-size.ts';

const root = new URL('..', import.meta.url).pathname;
const repoRoot = join(root, '../..');
const SWEEPS = (process.env.GROWTH_SWEEPS ?? 'size,concurrency').split(',');
const ROUNDS = Number(process.env.GROWTH_ROUNDS ?? 3);
const SECONDS = Number(process.env.GROWTH_SECONDS ?? 5);
const CONCURRENCY_SECONDS = Number(process.env.GROWTH_CONCURRENCY_SECONDS ?? 10);

/** The deployed build (dist/server) and the growth build with the 500-item catalog (dist/growth). */
function build(): void {
  execFileSync(process.execPath, ['scripts/build-if-stale.ts'], { cwd: root, stdio: 'inherit' });
  execFileSync(
    process.execPath,
    [
      join(repoRoot, 'node_modules/vite/bin/vite.js'),
      ...['build', '--ssr', '--config', 'bench/growth-vite.config.ts', '--logLevel', 'error'],
    ],
    { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } },
  );
}

/** This tree's image, as the container suites build it (Docker's layer cache makes a rebuild quick). */
async function image(): Promise<string> {
  if (process.env.WEB_IMAGE) return process.env.WEB_IMAGE;
  return buildImage({ tag: `ssr-telemetry/web:${process.env.E2E_IMAGE_TAG || 'bench'}`, target: 'web' });
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

async function main(): Promise<void> {
  const started = `${new Date().toISOString()}, load average ${loadAverage()}`;
  const reports: string[] = [];
  const capture = await startCaptureServer();
  try {
    if (SWEEPS.includes('size')) {
      build();
      reports.push(await sizeSweep(root, capture.dsn(), ROUNDS, SECONDS));
    }
    if (SWEEPS.includes('concurrency')) {
      const upstream = { dsn: capture.dsn(), envelopeUrl: capture.envelopeUrl('1') };
      reports.push(await concurrencySweep(await image(), upstream, ROUNDS, CONCURRENCY_SECONDS));
    }
  } finally {
    await capture.close();
  }
  console.log(
    `\nhow the web grows: started ${started}; ended ${new Date().toISOString()}, load average ${loadAverage()}`,
  );
  console.log(reports.join('\n\n'));
}

await main();
