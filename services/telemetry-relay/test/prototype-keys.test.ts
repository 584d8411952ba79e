import {
  type CaptureServer,
  envelope,
  eventItem,
  eventually,
  type HostileRequest,
  hostileEnvelopes,
  hostileSecurityReports,
  removeTempDirs,
  type ServiceProcess,
  startCaptureServer,
} from '@app/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileScrub, DEFAULT_SCRUB_SETTINGS, scrubEvent } from '../src/pii/index.ts';
import { spawnRelay, withRelay } from './with-relay.ts';

const PROJECT = { projectId: '42', publicKey: 'abc' };
const CONCURRENCY = 4;

/** The requests by what they attack (one test each): `event payload`, `envelope header`, `application/csp-report`… */
function groups(dsn: string): Map<string, HostileRequest[]> {
  const out = new Map<string, HostileRequest[]>();
  for (const request of [...hostileEnvelopes(dsn), ...hostileSecurityReports()]) {
    const group = request.name.slice(0, request.name.indexOf(':'));
    out.set(group, [...(out.get(group) ?? []), request]);
  }
  return out;
}
const GROUPS = [...groups('http://abc@127.0.0.1:1/42').keys()];

interface Outcome {
  request: HostileRequest;
  status: number;
  body: string;
}

/** Posts each request (tunnel or security path by its content type), CONCURRENCY at a time; `after` runs on each. */
async function sendAll(
  base: string,
  dsn: string,
  requests: readonly HostileRequest[],
  after: (outcome: Outcome) => void = () => {},
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  const security = `${base}/monitoring/security?dsn=${encodeURIComponent(dsn)}`;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests.length) {
        const request = requests[next++] as HostileRequest;
        const url = request.eventId === undefined ? security : `${base}/monitoring`;
        let outcome: Outcome;
        try {
          const response = await fetch(url, {
            method: 'POST',
            body: request.body,
            headers: { 'content-type': request.contentType },
          });
          outcome = { request, status: response.status, body: await response.text() };
        } catch (error) {
          outcome = { request, status: 0, body: String((error as Error).cause ?? error) };
        }
        outcomes.push(outcome);
        after(outcome);
      }
    }),
  );
  return outcomes;
}

/** What is wrong with an answer: not 200, and not a 4xx whose JSON names the error and says what was wrong. */
function problem({ status, body }: Outcome): string | undefined {
  if (status === 200) return undefined;
  if (status >= 400 && status < 500) {
    try {
      const json = JSON.parse(body) as { error?: unknown; detail?: unknown };
      if (typeof json.error === 'string' && typeof json.detail === 'string' && json.detail !== '') return undefined;
    } catch {}
  }
  return `${status} ${body.slice(0, 200)}`;
}

const problems = (outcomes: readonly Outcome[]) =>
  outcomes.flatMap((outcome) => {
    const wrong = problem(outcome);
    return wrong === undefined ? [] : [`${outcome.request.name}: ${wrong}`];
  });

describe('a relay process sent prototype keys at every key position', () => {
  let capture: CaptureServer;
  let dsn: string;
  let service: ServiceProcess;
  const accepted: string[] = [];

  beforeAll(async () => {
    capture = await startCaptureServer();
    dsn = capture.dsn(PROJECT);
    service = await spawnRelay({ ALLOWED_DSNS: dsn, LOG_SAMPLE_EVERY: '1000' });
  });
  afterAll(async () => {
    await service?.kill();
    await capture?.close();
    removeTempDirs();
  });

  it.each(GROUPS)('answers every request to %s with 200 or a 4xx that says why', async (group) => {
    const outcomes = await sendAll(service.url, dsn, groups(dsn).get(group) ?? [], (outcome) => {
      if (outcome.status === 200 && outcome.request.eventId) accepted.push(outcome.request.eventId);
    });
    expect(problems(outcomes)).toEqual([]);
    expect(service.child.exitCode).toBeNull();
  });

  it('stays up, logs no failure of its own, delivers what it accepted and the next ordinary envelope', async () => {
    // The crash came from a timer ≈200 ms after the answer: give timers their turn, then make it collect metrics.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${service.url}/metrics`)).status).toBe(200);
    const id = 'f'.repeat(32);
    const ordinary = await fetch(`${service.url}/monitoring`, {
      method: 'POST',
      body: envelope({ event_id: id, dsn }, [eventItem()]),
    });
    expect(ordinary.status).toBe(200);
    await capture.waitFor((arrived) => arrived.header.event_id === id, 10_000);
    expect(accepted.length).toBeGreaterThan(1000);
    const arrived = () => new Set(capture.envelopes.map((e) => e.header.event_id));
    await eventually(() => accepted.every((eventId) => arrived().has(eventId)), 10_000, 'every accepted envelope');
    expect(service.logs.filter((line) => typeof line.level === 'number' && line.level >= 50)).toEqual([]);
    expect(service.child.exitCode).toBeNull();
  });
});

describe('in this process, nothing a client sends reaches a prototype', () => {
  const under = withRelay({}, PROJECT);
  const PROTOTYPES = {
    'Object.prototype': Object.prototype,
    'Array.prototype': Array.prototype,
    'Function.prototype': Function.prototype,
    Object,
  };
  const shape = () =>
    Object.fromEntries(Object.entries(PROTOTYPES).map(([name, value]) => [name, Reflect.ownKeys(value).map(String)]));

  let before: ReturnType<typeof shape>;
  beforeAll(() => {
    before = shape();
  });

  it.each(GROUPS)('leaves Object, Array, Function and their prototypes as they were after each %s', async (group) => {
    const polluted: string[] = [];
    const outcomes = await sendAll(under.relay.url, under.dsn, groups(under.dsn).get(group) ?? [], ({ request }) => {
      if (polluted.length === 0 && JSON.stringify(shape()) !== JSON.stringify(before)) polluted.push(request.name);
    });
    expect(polluted).toEqual([]);
    expect(shape()).toEqual(before);
    expect(problems(outcomes)).toEqual([]);
  });
});

describe("the scrubber's _meta under a client's __proto__ key", () => {
  const compiled = compileScrub(DEFAULT_SCRUB_SETTINGS);
  if (!compiled) throw new Error('the default settings scrub');
  const scrubbed = (json: string) => {
    const event = JSON.parse(json) as Record<string, unknown>;
    scrubEvent(event, compiled);
    return JSON.parse(JSON.stringify(event)) as { extra: Record<string, unknown>; _meta: Record<string, unknown> };
  };
  /** An own member's value (reading `__proto__` plainly would answer the prototype where there is none). */
  const own = (object: object, key: string): unknown => Object.getOwnPropertyDescriptor(object, key)?.value;
  const REMARK = { '': { rem: [['@password:filter', 's', 0, 10]], len: 7 } };

  it.each([
    ['without a _meta of its own', '{"extra":{"__proto__":{"password":"hunter2"}}}'],
    ['with a _meta without the key', '{"extra":{"__proto__":{"password":"hunter2"}},"_meta":{"extra":{}}}'],
    ['with a _meta with the key', '{"extra":{"__proto__":{"password":"hunter2"}},"_meta":{"extra":{"__proto__":{}}}}'],
  ])('is a real "__proto__" member of the JSON, %s', (_name, json) => {
    const event = scrubbed(json);
    expect(Object.hasOwn(event.extra, '__proto__')).toBe(true);
    expect(own(event.extra, '__proto__')).toEqual({ password: '[Filtered]' });
    const extraMeta = event._meta.extra as Record<string, unknown>;
    expect(Object.hasOwn(extraMeta, '__proto__')).toBe(true);
    expect(own(extraMeta, '__proto__')).toEqual({ password: REMARK });
    expect(Reflect.ownKeys(Object.prototype)).not.toContain('password');
  });

  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'])(
    'keeps "%s" as an ordinary member of the JSON and of _meta',
    (key) => {
      const event = scrubbed(`{"extra":{"${key}":{"password":"hunter2"}},"_meta":{"extra":{}}}`);
      expect(event.extra[key]).toEqual({ password: '[Filtered]' });
      expect((event._meta.extra as Record<string, unknown>)[key]).toEqual({ password: REMARK });
    },
  );
});
