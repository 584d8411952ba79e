// Readable production errors: the client build's chunks carry Sentry Debug IDs, their source maps are never served,
// `release:sourcemaps` uploads them as one artifact bundle (to a local fake of Sentry's web API), and an error thrown
// in Chromium arrives upstream — through the web service's tunnel path and the relay — naming its chunk's Debug ID,
// so the uploaded map turns its top frame back into the original file and line of the `throw`.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import {
  type CapturedEnvelope,
  type CaptureServer,
  runToExit,
  type SentryApiFake,
  type ServiceProcess,
  spawnService,
  startCaptureServer,
  startSentryApiFake,
} from '@app/test-kit';
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, waitForHydration } from '../support/browser.ts';
import { startWeb } from '../support/web.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const webDir = join(repo, 'services/web');
const releaseScript = join(webDir, 'scripts/release-sourcemaps.ts');
const RELEASE = 'web@readable-errors';

let capture: CaptureServer;
let api: SentryApiFake;
let relay: ServiceProcess;
let web: ServiceProcess;
let browser: Browser;
let spoolDir: string;

beforeAll(async () => {
  [capture, api, spoolDir] = await Promise.all([
    startCaptureServer(),
    startSentryApiFake(),
    mkdtemp(join(tmpdir(), 'readable-errors-spool-')),
  ]);
  relay = await spawnService(join(repo, 'services/telemetry-relay/src/main.ts'), {
    // Loopback DSNs: no allowlist to derive the path from, so the one the web derives from its DSN.
    env: {
      ALLOW_LOOPBACK_DSNS: String(capture.port),
      SPOOL_DIR: spoolDir,
      TUNNEL_PATH: tunnelPathOf(capture.dsn()) ?? '',
    },
  });
  [web, browser] = await Promise.all([
    startWeb({ DIAGNOSTICS: '1', SENTRY_DSN: capture.dsn(), SENTRY_RELEASE: RELEASE, TUNNEL_TARGET: relay.url }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([web?.kill(), relay?.kill()]);
  await Promise.all([capture?.close(), api?.close(), spoolDir && rm(spoolDir, { recursive: true, force: true })]);
});

/** The built chunks as the browser gets them, each with the Debug ID its `//# debugId=` comment names. */
function servedChunks(): Array<{ name: string; debugId: string }> {
  const assets = join(webDir, 'dist/client/assets');
  return readdirSync(assets)
    .filter((name) => name.endsWith('.js'))
    .map((name) => ({
      name,
      debugId: /\/\/# debugId=([0-9a-f-]{36})\s*$/.exec(readFileSync(join(assets, name), 'utf8'))?.[1] ?? '',
    }));
}

const upload = (env: Record<string, string>) =>
  runToExit(releaseScript, {
    cwd: repo,
    timeoutMs: 60_000,
    env: { SENTRY_AUTH_TOKEN: '', SENTRY_ORG: '', SENTRY_PROJECT: '', SENTRY_URL: '', SENTRY_RELEASE: '', ...env },
  });
const withToken = () => ({
  SENTRY_AUTH_TOKEN: api.token,
  SENTRY_ORG: 'acme',
  SENTRY_PROJECT: 'web',
  SENTRY_URL: api.url,
  SENTRY_RELEASE: RELEASE,
});

describe('the client build', () => {
  it('gives every chunk a Debug ID and serves no source map (no sourceMappingURL, GET .map is a 404)', async () => {
    const chunks = servedChunks();
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(chunk.debugId, chunk.name).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const served = await fetch(`${web.url}/assets/${chunk.name}`);
      expect(served.status).toBe(200);
      expect(await served.text()).not.toContain('sourceMappingURL');
      for (const encoding of ['identity', 'br', 'gzip']) {
        const map = await fetch(`${web.url}/assets/${chunk.name}.map`, { headers: { 'accept-encoding': encoding } });
        expect(map.status, `${chunk.name}.map (${encoding})`).toBe(404);
      }
    }
  });
});

describe('npm run release:sourcemaps', () => {
  it('without SENTRY_AUTH_TOKEN says so, uploads nothing and exits 0', async () => {
    const result = await upload({});
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('SENTRY_AUTH_TOKEN is not set: source maps not uploaded');
    expect(api.requests).toEqual([]);
  });

  it('with a token but no org or project, says which setting is missing and exits 1', async () => {
    const result = await upload({ SENTRY_AUTH_TOKEN: api.token, SENTRY_PROJECT: 'web' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('SENTRY_ORG');
    expect(api.requests).toEqual([]);
  });

  it('with a token Sentry refuses, says the upload failed and exits 1', async () => {
    const result = await upload({ ...withToken(), SENTRY_AUTH_TOKEN: 'sntrys_revoked' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/upload to http:\/\/127\.0\.0\.1:\d+ \(acme\/web, release [^)]+\) failed: /);
    expect(api.bundles).toEqual([]);
    api.requests.length = 0;
  });

  it('uploads one artifact bundle for the release holding every chunk and its map under the chunk’s Debug ID', async () => {
    const result = await upload(withToken());
    expect(result.code, result.stderr).toBe(0);
    // The endpoints the uploader really calls, in Sentry's order: options, chunks, assemble.
    const calls = api.requests.map((r) => `${r.method} ${r.path} ${r.status}`);
    expect(calls).toContain('GET /api/0/organizations/acme/chunk-upload/ 200');
    expect(calls).toContain('POST /api/0/organizations/acme/chunk-upload/ 200');
    expect(calls).toContain('POST /api/0/organizations/acme/artifactbundle/assemble/ 200');
    expect(api.bundles).toHaveLength(1);
    const [bundle] = api.bundles;
    expect(bundle).toMatchObject({ org: 'acme', projects: ['web'], release: RELEASE });
    for (const chunk of servedChunks()) {
      const minified = bundle?.files.find((f) => f.url === `~/assets/${chunk.name}`);
      expect(minified?.type, chunk.name).toBe('minified_source');
      expect(minified?.headers['debug-id']).toBe(chunk.debugId);
      // Byte for byte what browsers run, so lines and columns in their stack traces fit the map.
      expect(minified?.content.equals(readFileSync(join(webDir, 'dist/client/assets', chunk.name)))).toBe(true);
      const map = bundle?.sourceMapByDebugId(chunk.debugId);
      expect(map?.debug_id ?? map?.debugId, chunk.name).toBe(chunk.debugId);
    }
  });
});

type Frame = { filename?: string; lineno?: number; colno?: number; in_app?: boolean };
type ErrorEvent = {
  release?: string;
  exception?: { values?: Array<{ type?: string; value?: string; stacktrace?: { frames?: Frame[] } }> };
  debug_meta?: { images?: Array<{ type: string; code_file: string; debug_id: string }> };
};
const eventOf = (envelope: CapturedEnvelope) =>
  envelope.items.find((item) => item.type === 'event')?.json as ErrorEvent | undefined;

describe('an error thrown in Chromium', () => {
  it('arrives through the tunnel and the relay naming its chunk’s Debug ID; the uploaded map gives the throw', async () => {
    if (api.bundles.length === 0) expect((await upload(withToken())).code).toBe(0);
    const page = await browser.newPage();
    await page.goto(`${web.url}/diagnostics/client-error`);
    await waitForHydration(page);
    await page.click('text=Throw in the browser');
    const envelope = await capture.waitFor(
      (e) => JSON.stringify(eventOf(e)?.exception ?? '').includes('diagnostics: render failure'),
      20_000,
    );
    await page.close();
    // Forwarded by the relay (the web service's tunnel proxy adds X-Forwarded-For, the relay X-Sentry-Forwarded-For).
    expect(envelope.requestHeaders['x-sentry-forwarded-for']).toBeDefined();
    const event = eventOf(envelope) as ErrorEvent;
    expect(event.release).toBe(RELEASE);
    // The thrown error is the last value; before it comes React's component stack as a synthetic `cause`.
    const exception = event.exception?.values?.at(-1);
    expect(exception?.type).toBe('Error');
    expect(exception?.value).toContain('diagnostics: render failure');
    const frames = exception?.stacktrace?.frames ?? [];
    // Sentry lists frames oldest first: the top frame is the last one in a served chunk.
    const top = frames.filter((f) => f.in_app !== false && /\/assets\/[^/]+\.js$/.test(f.filename ?? '')).at(-1);
    expect(top, JSON.stringify(frames)).toBeDefined();
    const image = event.debug_meta?.images?.find((i) => i.code_file === top?.filename);
    expect(image?.type).toBe('sourcemap');
    const chunk = servedChunks().find((c) => top?.filename?.endsWith(`/assets/${c.name}`));
    expect(image?.debug_id).toBe(chunk?.debugId);

    // Symbolication as Sentry does it: the map uploaded under that Debug ID, the frame's line and column.
    const map = api.bundles[0]?.sourceMapByDebugId(image?.debug_id ?? '');
    expect(map).toBeDefined();
    const original = originalPositionFor(new TraceMap(map as never), {
      line: top?.lineno ?? 0,
      column: (top?.colno ?? 1) - 1,
    });
    const viewFile = 'services/web/src/app/routes/diagnostics.$failure/view.tsx';
    const throwLine =
      readFileSync(join(repo, viewFile), 'utf8')
        .split('\n')
        .findIndex((line) => line.includes('throw new Error(`diagnostics: render failure')) + 1;
    expect({ source: original.source, line: original.line }).toEqual({ source: viewFile, line: throwLine });
    console.info(
      `top frame: ${top?.filename}:${top?.lineno}:${top?.colno} (debug_id ${image?.debug_id})` +
        ` → ${original.source}:${original.line}:${original.column} (${original.name ?? 'anonymous'})`,
    );
  });
});
