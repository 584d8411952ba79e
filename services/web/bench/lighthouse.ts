// `npm run bench:lighthouse -w @app/web`: Lighthouse (mobile preset: simulated slow 4G, 4x CPU slowdown) against the
// production build with Sentry on, every page of the example product, medians of three runs each. Debian's Chromium,
// started here with a DevTools port for Lighthouse. A benchmark, not a test: scores move a few points between runs.
// LIGHTHOUSE_RUNS and COMPRESSION=off (the service's own variable) change what is measured.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnService, startCaptureServer } from '@app/test-kit';
import lighthouse from 'lighthouse';

const root = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
const PAGES = ['/', '/catalog', '/catalog/amber-lamp', '/preferences'];
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
const METRICS = {
  FCP: 'first-contentful-paint',
  LCP: 'largest-contentful-paint',
  TBT: 'total-blocking-time',
  CLS: 'cumulative-layout-shift',
} as const;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** Chromium with a DevTools port on loopback; resolves with the port once it says where it listens. */
async function startChromium(): Promise<{ port: number; child: ChildProcess; profile: string }> {
  const profile = mkdtempSync(join(tmpdir(), 'lighthouse-chromium-'));
  const child = spawn(
    process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-component-update',
      '--remote-debugging-address=127.0.0.1',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let seen = '';
  for await (const chunk of child.stderr) {
    seen += String(chunk);
    const port = /DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(seen)?.[1];
    if (port) {
      child.stderr.resume();
      return { port: Number(port), child, profile };
    }
  }
  throw new Error(`chromium exited before opening its DevTools port:\n${seen}`);
}

type Row = Record<string, number>;

async function audit(url: string, port: number): Promise<Row> {
  const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: [...CATEGORIES] });
  if (!result) throw new Error(`lighthouse returned nothing for ${url}`);
  const { categories, audits, runtimeError } = result.lhr;
  if (runtimeError) throw new Error(`lighthouse ${url}: ${runtimeError.code} ${runtimeError.message}`);
  const row: Row = {};
  for (const id of CATEGORIES) row[id] = Math.round((categories[id]?.score ?? Number.NaN) * 100);
  for (const [name, id] of Object.entries(METRICS)) row[name] = audits[id]?.numericValue ?? Number.NaN;
  return row;
}

const format = (name: string, value: number) =>
  name === 'CLS' ? value.toFixed(3) : name in METRICS ? `${(value / 1000).toFixed(2)} s` : String(value);

async function main(): Promise<void> {
  execFileSync(process.execPath, ['scripts/build-if-stale.ts'], { cwd: root, stdio: 'inherit' });
  const capture = await startCaptureServer();
  const web = await spawnService(`${root}dist/server/main.js`, {
    cwd: root,
    env: {
      NODE_OPTIONS: `--import ${root}dist/server/instrument.js`,
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      SENTRY_DSN: capture.dsn(),
      TUNNEL_TARGET: capture.envelopeUrl(),
    },
  });
  const chromium = await startChromium();
  const rows = new Map<string, Row[]>();
  try {
    for (let run = 1; run <= RUNS; run++) {
      for (const path of PAGES) {
        const row = await audit(`${web.url}${path}`, chromium.port);
        rows.set(path, [...(rows.get(path) ?? []), row]);
        console.log(
          `run ${run} ${path.padEnd(22)} ${Object.entries(row)
            .map(([k, v]) => `${k} ${format(k, v)}`)
            .join('  ')}`,
        );
      }
    }
  } finally {
    chromium.child.kill('SIGKILL');
    await once(chromium.child, 'exit');
    rmSync(chromium.profile, { recursive: true, force: true });
    await web.kill();
    await capture.close();
  }
  const columns = ['Perf', 'A11y', 'BP', 'SEO', ...Object.keys(METRICS)];
  console.log(`\nmedians of ${RUNS} runs, mobile preset, Sentry on, COMPRESSION=${process.env.COMPRESSION ?? 'on'}`);
  console.log(`| page | ${columns.join(' | ')} |\n|---|${columns.map(() => '---:').join('|')}|`);
  for (const [path, runs] of rows) {
    const keys = [...CATEGORIES, ...Object.keys(METRICS)];
    const cells = keys.map((key) => format(key, median(runs.map((r) => r[key] ?? Number.NaN))));
    console.log(`| ${path} | ${cells.join(' | ')} |`);
  }
}

await main();
