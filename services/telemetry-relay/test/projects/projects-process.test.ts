// PROJECTS_FILE in the relay as a real process: a bad file stops it with exit 78 naming every problem; SIGHUP applies
// a changed file, or refuses a bad one and keeps serving the old projects, while a client keeps its connection.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type CaptureServer, EVENT_ID, envelope, eventItem, eventually, runToExit, spawnService } from '@app/test-kit';
import { withCapture, withProcesses } from '@app/test-kit/with-capture';
import { Agent, request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { metricValue, writeProjectsFile } from './projects-helpers.ts';

const entry = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const under = withCapture({ projectId: '11', publicKey: 'shop' });
const running = withProcesses(under);
let capture: CaptureServer;
let shop: string;
let blog: string;
beforeAll(() => {
  ({ capture, dsn: shop } = under);
  blog = capture.dsn({ projectId: '22', publicKey: 'blog' });
});

describe('the relay process with PROJECTS_FILE', () => {
  it('exits 78 naming every problem of the file (path and message)', async () => {
    const file = writeProjectsFile({
      projects: {
        [shop]: { origins: ['https://shop.example.com/'], scrub: { strict: 'yes' } },
        'https://nokey.example.com/1': { origins: [] },
      },
      version: 2,
    });
    const result = await runToExit(entry, { env: { PROJECTS_FILE: file, TUNNEL_PATH: '/monitoring' } });
    expect(result.code).toBe(78);
    const line = JSON.parse(result.stderr.trim().split('\n').at(-1) as string) as { problems: string[] };
    expect(line.problems).toEqual([
      'PROJECTS_FILE version: is not a setting the relay knows',
      `PROJECTS_FILE projects["${shop}"].origins[0]: must be an origin: http(s)://host[:port], without a path, wildcard or trailing slash`,
      `PROJECTS_FILE projects["${shop}"].scrub.strict: must be boolean`,
      'PROJECTS_FILE projects["https://nokey.example.com/1"]: is not a DSN: it has no public key',
    ]);
  });

  it('SIGHUP applies a changed file and refuses a bad one, on one kept-alive connection throughout', async () => {
    const file = writeProjectsFile({ projects: { [shop]: { origins: [] }, [blog]: { origins: [] } } });
    const relay = await spawnService(entry, {
      env: { PROJECTS_FILE: file, TUNNEL_PATH: '/monitoring', PROJECTS_WATCH_DEBOUNCE_MS: '60000' },
    });
    running.push(relay);
    const agent = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
    let connections = 0;
    const send = async (dsn: string) => {
      const response = await request(`${relay.url}/monitoring`, {
        method: 'POST',
        body: envelope({ event_id: EVENT_ID, dsn }, [eventItem()]),
        dispatcher: agent,
      });
      await response.body.arrayBuffer();
      return response.statusCode;
    };
    const counts = async () => ({
      applied: await metricValue(relay.url, 'relay_config_reloads_total{outcome="applied"}'),
      refused: await metricValue(relay.url, 'relay_config_reloads_total{outcome="refused"}'),
    });
    agent.on('connect', () => connections++);
    expect(await send(blog)).toBe(200);

    writeFileSync(file, JSON.stringify({ projects: { [shop]: { origins: [] } } }));
    relay.child.kill('SIGHUP');
    await eventually(async () => (await counts()).applied === 1, 10_000, 'the reload applied');
    expect(await send(blog)).toBe(403);
    expect(await send(shop)).toBe(200);

    writeFileSync(file, '{"projects": {"not a dsn": 1}}');
    relay.child.kill('SIGHUP');
    await eventually(async () => (await counts()).refused === 1, 10_000, 'the bad file refused');
    await eventually(
      () => relay.logs.some((l) => l.msg === 'projects file refused; the projects loaded before stay in force'),
      10_000,
      'the warn line',
    );
    const warn = relay.logs.find((l) => l.msg === 'projects file refused; the projects loaded before stay in force');
    expect(warn).toMatchObject({
      level: 40,
      trigger: 'SIGHUP',
      problems: expect.arrayContaining([expect.stringContaining('not a dsn')]),
    });
    expect(await send(shop)).toBe(200);
    expect(await send(blog)).toBe(403);
    expect(relay.child.exitCode).toBeNull();
    // One connection throughout: the reloads dropped none.
    expect(connections).toBe(1);
    await agent.close();
  });
});
