// Makes docs/observability-envelopes.png: the compose stack's Prometheus graphing the relay's envelope outcomes
// while this script sends envelopes through the web service's tunnel path (most accepted and forwarded, some with a
// DSN the relay does not allow, some malformed). Run against `docker compose --profile observability up`:
//   docker compose --profile observability up -d --build --wait
//   node scripts/observability-screenshot.ts          (WEB_URL, PROMETHEUS_URL, LOAD_SECONDS to change the defaults)
// Chromium is Debian's, driven by playwright-core (@app/test-kit/chromium).
import { fileURLToPath } from 'node:url';
import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import { launchChromium } from '@app/test-kit/chromium';

const webUrl = process.env.WEB_URL ?? 'http://127.0.0.1:3000';
const prometheusUrl = process.env.PROMETHEUS_URL ?? 'http://127.0.0.1:9090';
const loadSeconds = Number(process.env.LOAD_SECONDS ?? 150);
const output = fileURLToPath(new URL('../docs/observability-envelopes.png', import.meta.url));

/** Each outcome as one series: accepted, forwarded upstream, and rejected by reason. */
export const OUTCOMES_QUERY = [
  'sum by (outcome) (',
  '  label_replace(rate(relay_envelopes_accepted_total[1m]), "outcome", "accepted", "", "")',
  '  or label_replace(rate(relay_envelopes_forwarded_total[1m]), "outcome", "forwarded", "", "")',
  '  or label_replace(rate(relay_envelopes_rejected_total[1m]), "outcome", "rejected: $1", "reason", "(.*)")',
  ')',
].join('\n');

/** The DSN the compose web service reports with (and the relay allows), from its environment there. */
const dsn = process.env.SENTRY_DSN ?? 'http://compose@localhost/1';

function envelope(withDsn: string): string {
  const eventId = crypto.randomUUID().replaceAll('-', '');
  const event = { event_id: eventId, timestamp: Date.now() / 1000, platform: 'javascript', level: 'error' };
  return `${JSON.stringify({ event_id: eventId, dsn: withDsn, sent_at: new Date().toISOString() })}\n${JSON.stringify({ type: 'event' })}\n${JSON.stringify({ ...event, message: 'observability screenshot' })}\n`;
}

async function post(body: string): Promise<void> {
  const response = await fetch(`${webUrl}${tunnelPathOf(dsn)}`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8' },
    body,
  });
  await response.arrayBuffer();
}

async function drive(): Promise<void> {
  const until = Date.now() + loadSeconds * 1000;
  let n = 0;
  const timer = setInterval(() => {
    n++;
    // 20 a second: 16 accepted, 3 from a project the relay does not allow, 1 malformed; more foreign in the middle.
    const burst = Date.now() > until - (loadSeconds * 1000) / 2 && Date.now() < until - (loadSeconds * 1000) / 4;
    const body =
      n % 20 === 0
        ? 'not an envelope'
        : n % 20 < (burst ? 9 : 4)
          ? envelope('http://foreign@localhost/2')
          : envelope(dsn);
    void post(body).catch(() => undefined);
  }, 50);
  await new Promise((resolve) => setTimeout(resolve, loadSeconds * 1000));
  clearInterval(timer);
}

console.info(`sending envelopes to ${webUrl}${tunnelPathOf(dsn)} for ${loadSeconds} s`);
await drive();
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  const params = new URLSearchParams({
    'g0.expr': OUTCOMES_QUERY,
    'g0.tab': '0',
    'g0.stacked': '0',
    'g0.range_input': `${Math.ceil(loadSeconds / 60) + 1}m`,
  });
  await page.goto(`${prometheusUrl}/classic/graph?${params}`);
  await page.locator('.graph_area svg, .graph svg').first().waitFor({ timeout: 30_000 });
  await page.waitForTimeout(1_000);
  await page.screenshot({ path: output, fullPage: true });
  console.info(`wrote ${output}`);
} finally {
  await browser.close();
}
