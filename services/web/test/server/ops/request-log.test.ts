// The sampled request log: which requests get a line and what the line says.
import { Writable } from 'node:stream';
import Fastify, { LogController } from 'fastify';
import { describe, expect, it, onTestFinished } from 'vitest';
import { logRequests, sampledRequestLog } from '../../../src/server/ops/request-log.ts';

async function appWithLogs(sampleEvery: number) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  // Fastify's own request lines off, as the web app has them (service-kit's skipRequestLog), without the deprecated
  // top-level option (FSTDEP023).
  const logController = new LogController({ disableRequestLogging: true });
  const app = Fastify({ logger: { level: 'info', stream }, logController });
  logRequests(app, sampledRequestLog({ sampleEvery }));
  app.get('/ok', async () => 'ok');
  app.get('/fail', async (_req, reply) => reply.code(500).send('no'));
  onTestFinished(() => app.close());
  await app.ready();
  const completed = () => lines.filter((line) => line.msg === 'request completed');
  return { app, completed };
}

const statusOf = (line: Record<string, unknown>) => (line.res as { statusCode: number }).statusCode;

describe('request logs', () => {
  it('log one success in sampleEvery, with the sampling rate on the line', async () => {
    const { app, completed } = await appWithLogs(100);
    for (let i = 0; i < 250; i++) await app.inject('/ok');
    expect(completed()).toHaveLength(3); // the 1st, 101st and 201st
    expect(completed()[0]).toMatchObject({ req: { method: 'GET', url: '/ok' }, route: '/ok', sampleOneIn: 100 });
    expect(typeof completed()[0]?.responseTime).toBe('number');
  });

  it('log every response with status >= 400, whatever the sampling', async () => {
    const { app, completed } = await appWithLogs(1_000);
    await app.inject('/ok');
    for (let i = 0; i < 5; i++) await app.inject('/fail');
    await app.inject('/missing');
    expect(completed().map(statusOf)).toEqual([200, 500, 500, 500, 500, 500, 404]);
    expect(completed()[1]).not.toHaveProperty('sampleOneIn');
  });

  it('log every request with sampleEvery 1', async () => {
    const { app, completed } = await appWithLogs(1);
    for (let i = 0; i < 10; i++) await app.inject('/ok');
    expect(completed()).toHaveLength(10);
  });
});
