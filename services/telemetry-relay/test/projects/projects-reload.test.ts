// Reloading PROJECTS_FILE in a running relay: a good file applied, a bad one refused with the old kept, the watch of
// its directory (a plain write and a ConfigMap's symlink swap), an envelope in flight across a reload, the spool.
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import {
  type CaptureServer,
  EVENT_ID,
  envelope,
  errorEvent,
  eventItem,
  eventually,
  post,
  tempDir,
} from '@app/test-kit';
import { withCapture } from '@app/test-kit/with-capture';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { metricValue, type ProjectsRelay, startProjectsRelay } from './projects-helpers.ts';

const under = withCapture({ projectId: '11', publicKey: 'shop' });
let capture: CaptureServer;
let relay: ProjectsRelay;
let shop: string;
let blog: string;

/** Shop scrubs `order_secret`; blog is listed. */
const base = () => ({
  projects: { [shop]: { origins: [], scrub: { sensitiveFields: ['order_secret'] } }, [blog]: { origins: [] } },
});
/** Shop scrubs nothing now; blog is gone. */
const changed = () => ({ projects: { [shop]: { origins: [], scrub: { scrubData: false } } } });

beforeAll(async () => {
  ({ capture, dsn: shop } = under);
  blog = capture.dsn({ projectId: '22', publicKey: 'blog' });
  relay = await startProjectsRelay(base(), { RETRY_BASE_MS: '20', RETRY_MAX_MS: '50', SPOOL_MODE: 'durable' });
});
beforeEach(() => {
  relay.write(base());
  relay.projects.reload('test setup');
});
afterEach(() => {
  capture.setBehaviour({ kind: 'accept' });
  capture.clear();
});
afterAll(() => relay?.close());

const secretEvent = () => ({ ...errorEvent(), extra: { order_secret: 'o-123' } });
const body = (dsn: string) => envelope({ event_id: EVENT_ID, dsn }, [eventItem(secretEvent())]);
const secretArrived = async (): Promise<unknown> => {
  const arrived = await capture.waitFor((e) => e.items.some((i) => i.type === 'event'));
  const event = arrived.items.find((i) => i.type === 'event')?.json as { extra?: { order_secret?: unknown } };
  return event.extra?.order_secret;
};
const reloads = (outcome: string) => metricValue(relay.url, `relay_config_reloads_total{outcome="${outcome}"}`);
const infoLine = async () =>
  (await (await fetch(`${relay.url}/metrics`)).text()).match(/^relay_projects_config_info.*$/m)?.[0];

describe('a reload', () => {
  it('applies a good file: new envelopes take its settings, a removed DSN is refused, the metrics say which', async () => {
    const applied = await reloads('applied');
    relay.write(changed());
    expect(relay.projects.reload('test')).toEqual({ outcome: 'applied' });
    expect(await reloads('applied')).toBe(applied + 1);
    expect((await post(relay.tunnel, body(shop))).status).toBe(200);
    expect(await secretArrived()).toBe('o-123');
    const refused = await post(relay.tunnel, body(blog));
    expect([refused.status, refused.json.error]).toEqual([403, 'dsn_not_allowed']);
    const metrics = await (await fetch(`${relay.url}/metrics`)).text();
    expect(metrics).toMatch(/^relay_projects_config_info\{sha256="[0-9a-f]{16}",projects="1"\} 1$/m);
    expect(metrics).toMatch(/^relay_projects_config_loaded_timestamp_seconds \d+(\.\d+)?$/m);
  });

  it('leaves an unchanged file alone (the watch fires for every file a ConfigMap update touches)', async () => {
    const applied = await reloads('applied');
    expect(relay.projects.reload('test')).toEqual({ outcome: 'unchanged' });
    expect(await reloads('applied')).toBe(applied);
  });

  it.each([
    ['not JSON', '{"projects":', ['(the file): is not JSON: ']],
    [
      'a schema violation',
      JSON.stringify({ projects: { 'https://x@h/1': { origins: ['*'] } } }),
      ['origins[0]: must be'],
    ],
    ['an unknown ignore rule', '', ['ignoreRules: names an unknown rule']],
  ])(
    'refuses %s: the old projects stay, a warn line names every problem, the metric counts it',
    async (_name, text, named) => {
      const document = text || JSON.stringify({ projects: { [shop]: { origins: [], ignoreRules: ['nope'] } } });
      const refused = await reloads('refused');
      const info = await infoLine();
      relay.write(document);
      expect(relay.projects.reload('test').outcome).toBe('refused');
      expect(await reloads('refused')).toBe(refused + 1);
      const line = relay.logs.findLast(
        (l) => l.msg === 'projects file refused; the projects loaded before stay in force',
      );
      expect(line).toMatchObject({ level: 40, trigger: 'test', file: relay.file });
      for (const part of named) expect(((line?.problems ?? []) as string[]).some((p) => p.includes(part))).toBe(true);
      // Still the old projects: blog allowed, shop scrubbed, the same file version reported.
      expect((await post(relay.tunnel, body(blog))).status).toBe(200);
      capture.clear();
      expect((await post(relay.tunnel, body(shop))).status).toBe(200);
      expect(await secretArrived()).toBe('[Filtered]');
      expect(await infoLine()).toBe(info);
    },
  );

  it('finishes an envelope in flight with the settings it started with', async () => {
    const bytes = body(shop);
    const headerEnd = bytes.indexOf(10) + 1;
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(relay.tunnel, { method: 'POST', headers: { 'content-length': String(bytes.length) } });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      // The header line (authorized with the projects loaded now), then the reload, then the rest of the body.
      req.write(bytes.subarray(0, headerEnd));
      setTimeout(() => {
        relay.write(changed());
        relay.projects.reload('test');
        req.end(bytes.subarray(headerEnd));
      }, 200);
    });
    expect(await answer).toEqual({ status: 200, text: `{"id":"${EVENT_ID}"}` });
    expect(await secretArrived()).toBe('[Filtered]');
    capture.clear();
    // The next envelope takes the new settings.
    expect((await post(relay.tunnel, body(shop))).status).toBe(200);
    expect(await secretArrived()).toBe('o-123');
  });

  it('keeps spooled envelopes across a reload and delivers them once upstream is back', async () => {
    capture.setBehaviour({ kind: 'fail', status: 503 });
    for (let i = 0; i < 5; i++) expect((await post(relay.tunnel, body(shop))).status).toBe(200);
    relay.write(changed());
    expect(relay.projects.reload('test')).toEqual({ outcome: 'applied' });
    capture.setBehaviour({ kind: 'accept' });
    await eventually(() => capture.envelopes.length >= 5, 10_000, 'the spooled envelopes delivered after the reload');
    expect(capture.envelopes.map((e) => e.projectId)).toEqual(['11', '11', '11', '11', '11']);
  });
});

describe('the watch of the file directory', () => {
  let watched: ProjectsRelay | undefined;
  afterEach(() => watched?.close());
  const count = (outcome: string) =>
    metricValue((watched as ProjectsRelay).url, `relay_config_reloads_total{outcome="${outcome}"}`);

  it('applies a plain write, once, after the debounce', async () => {
    watched = await startProjectsRelay(base(), { PROJECTS_WATCH_DEBOUNCE_MS: '50' });
    watched.write(changed());
    await eventually(async () => (await count('applied')) === 1, 10_000, 'the change applied');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await count('applied')).toBe(1);
    expect((await post(watched.tunnel, body(blog))).status).toBe(403);
  });

  it('applies a ConfigMap update (a new directory, the ..data symlink swapped), and refuses a bad one', async () => {
    // The kubelet's layout: projects.json → ..data/projects.json, ..data → ..<timestamp>/.
    const dir = tempDir();
    const version = (name: string, document: unknown) => {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'projects.json'), JSON.stringify(document));
      symlinkSync(name, join(dir, '..data_tmp'));
      renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    };
    version('..2026_12_01_v1', base());
    symlinkSync('..data/projects.json', join(dir, 'projects.json'));
    watched = await startProjectsRelay(undefined, {
      PROJECTS_FILE: join(dir, 'projects.json'),
      PROJECTS_WATCH_DEBOUNCE_MS: '50',
    });
    version('..2026_12_01_v2', changed());
    await eventually(async () => (await count('applied')) === 1, 10_000, 'the new version applied');
    expect(watched.projects.current().projects).toHaveLength(1);
    version('..2026_12_01_v3', { projects: {} });
    await eventually(async () => (await count('refused')) === 1, 10_000, 'the bad version refused');
    expect(watched.projects.current().projects).toHaveLength(1);
  });
});
