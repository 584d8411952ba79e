// Compose smoke test: the developer stack from docker-compose.yml comes up healthy, serves a page, and an envelope
// posted to the web service's tunnel path travels web → relay → Spotlight, which shows it as a Sentry envelope.
// With the observability profile, Prometheus joins and scrapes both services with the project's rules.

import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Manifest, ruleGroups } from '../../deploy/prometheus/config.ts';
import { renderOverlay } from '../../deploy/test/support/manifests.ts';
import { launchChromium } from '../support/browser.ts';
import { buildImage, docker, E2E_TAG, errorEnvelope, newEventId } from '../support/containers.ts';
import { prometheusApi } from '../support/prometheus.ts';
import { serverTelemetryInSpotlight, spotlightEvent } from '../support/spotlight.ts';

const project = `ssr-e2e-${process.pid}`;
// Images built once by the suites (tag e2e) are used as they are; random loopback ports avoid a developer's stack.
const env = {
  ...process.env,
  IMAGE_TAG: E2E_TAG,
  RELEASE: E2E_TAG,
  WEB_PORT: '0',
  RELAY_PORT: '0',
  VIEWER_PORT: '0',
  PROMETHEUS_PORT: '0',
  DIAGNOSTICS: '1',
};
const compose = (...args: string[]) => docker(['compose', '-p', project, '-f', 'docker-compose.yml', ...args], { env });

async function published(service: string, port: number): Promise<string> {
  const address = await compose('port', service, String(port));
  return `http://127.0.0.1:${address.split(':').pop()}`;
}

afterAll(async () => {
  await compose('--profile', 'observability', 'down', '-v', '--timeout', '10').catch(() => undefined);
});

describe('docker compose stack', () => {
  beforeAll(async () => {
    for (const image of ['telemetry-viewer', 'telemetry-relay', 'web'] as const) await buildImage(image);
    await compose('up', '-d', '--wait', '--wait-timeout', '120');
  });

  it('brings every service up healthy', async () => {
    const lines = (await compose('ps', '--format', '{{.Service}} {{.Health}}')).split('\n').sort();
    expect(lines).toEqual(['relay healthy', 'viewer healthy', 'web healthy']);
  });

  it('serves a server-rendered page', async () => {
    const response = await fetch(`${await published('web', 3000)}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toMatch(/<div[^>]*id="root"|<main|<body/);
  });

  it('shows an error and a feedback sent from the page in Spotlight (the stream its UI reads)', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${await published('web', 3000)}/`);
      await page.waitForLoadState('networkidle');
      const marker = newEventId();
      await page.evaluate((message) => {
        setTimeout(() => {
          throw new Error(message);
        });
      }, `compose error ${marker}`);
      await page.locator('#sentry-feedback').getByRole('button').first().click();
      await page.locator('#sentry-feedback textarea[name="message"]').fill(`compose feedback ${marker}`);
      await page.locator('#sentry-feedback button[type="submit"]').click();
      const viewer = await published('viewer', 8969);
      const error = await spotlightEvent(viewer, `compose error ${marker}`, 30_000);
      expect(error.type).toBe('application/x-sentry-envelope');
      const feedback = await spotlightEvent(viewer, `compose feedback ${marker}`, 30_000);
      expect(feedback.data).toContain('"type":"feedback"');
    } finally {
      await browser.close();
    }
  });

  it("shows the server's own error and spans in Spotlight (the Node SDK sends through the relay)", async () => {
    const { error, spans } = await serverTelemetryInSpotlight(
      await published('web', 3000),
      await published('viewer', 8969),
    );
    expect(error).toContain('server-error');
    expect(spans).toContain('/catalog');
  });

  it('forwards an envelope from the tunnel path through the relay to Spotlight', async () => {
    const eventId = newEventId();
    const dsn = JSON.parse(await compose('config', '--format', 'json')).services.web.environment.SENTRY_DSN as string;
    // No TUNNEL_PATH: the path `tunnel: true` derives from the DSN, in web and relay alike.
    const response = await fetch(`${await published('web', 3000)}${tunnelPathOf(dsn)}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: errorEnvelope(dsn, eventId, 'compose smoke test'),
    });
    expect(response.status).toBe(200);
    const event = await spotlightEvent(await published('viewer', 8969), eventId, 20_000);
    // Spotlight parses (and its UI shows) only what arrives as a Sentry envelope.
    expect(event.type).toBe('application/x-sentry-envelope');
    expect(event.data).toContain('compose smoke test');
  });
});

// The same project, the profile added: compose starts Prometheus beside the running services.
describe('docker compose --profile observability', () => {
  beforeAll(async () => {
    await buildImage('prometheus');
    await compose('--profile', 'observability', 'up', '-d', '--wait', '--wait-timeout', '120');
  });

  it("adds Prometheus, scraping web and relay with the PodMonitors' jobs and the project's rules loaded", async () => {
    const prometheus = prometheusApi(await published('prometheus', 9090));
    await expect
      .poll(async () => (await prometheus.targets()).map((t) => `${t.labels.job} ${t.health}`).sort(), {
        timeout: 30_000,
        interval: 1_000,
      })
      .toEqual(['telemetry-relay up', 'web up']);
    const alerts = ruleGroups((await renderOverlay('dev')) as Manifest[]).flatMap((g) => g.rules.map((r) => r.alert));
    const rules = await prometheus.rules();
    expect(rules.map((r) => r.name).sort()).toEqual(alerts.sort());
    expect(rules.filter((r) => r.health === 'err')).toEqual([]);
    // The services' own series arrive under the dashboard's labels.
    const up = await prometheus.query('up{namespace="ssr-telemetry-dev"}');
    expect(up.map((s) => `${s.metric.pod} ${s.value[1]}`).sort()).toEqual(['telemetry-relay-0 1', 'web-0 1']);
  });

  it('serves its web UI on the published port', async () => {
    const response = await fetch(`${await published('prometheus', 9090)}/graph`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Prometheus');
  });
});
