// SDK 11's defaults end to end (issue 37, point 5). A checkout page bundled from the real @sentry/browser with its
// defaults (span streaming, logs, the Replay integration, default dataCollection and sendDefaultPii) and a Node app
// on @sentry/node 11 with its defaults (support/sdk-defaults-app) report through the web service's tunnel and a
// real relay with its default settings. Secrets are planted where an app leaks them: typed into the form, in the
// URL's query and fragment, in an Authorization header, in error messages, log bodies and attributes, in a span
// attribute, and the user's address. Upstream must see none of them wherever Relay's defaults scrub them (every
// item searched, replay recordings decompressed), and must see every item type that carried them.
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import { readEnvelope, type ServiceProcess, spawnService } from '@app/test-kit';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';
import { describeFinding, type Finding, findSecrets, type Secret, sideOf } from '../support/leak-search.ts';
import { bundlePage } from '../support/sdk-defaults-app/bundle.ts';
import { type Front, startFront } from '../support/sdk-defaults-app/front.ts';
import { startTap, type Tap } from '../support/sdk-defaults-app/tap.ts';
import { startTelemetryStack, type TelemetryStack } from '../support/telemetry-stack.ts';

const appDir = new URL('../support/sdk-defaults-app/', import.meta.url);

const SECRETS = {
  password: 'hunter2-Sdk11-typed',
  card: '4012888888881881',
  email: 'ada.lovelace.sdk11@example.com',
  apiKey: 'AKsdk11e2eApiKey0123',
  /** In the page URL's fragment (an OAuth implicit flow); the page sends it as `Authorization: Bearer`. */
  token: 'ya29.sdk11-e2e-bearer-token',
  /** The user's address, as the load balancer in front of the app reports it (X-Forwarded-For). */
  ip: '198.51.100.77',
} as const;
type SecretName = keyof typeof SECRETS;
const secrets: Secret[] = Object.entries(SECRETS).map(([name, value]) => ({ name, value }));

/**
 * Where Relay's defaults forward a secret as it is, so a relay that matches them does too (getsentry/relay
 * relay-pii convert.rs `to_pii_config` and builtin.rs; relay-replays recording.rs). Listed in the failure message.
 */
const KEPT_BY_RELAY_DEFAULTS: Array<{ secrets: SecretName[]; why: string; where: (f: Finding) => boolean }> = [
  {
    secrets: ['card', 'email'],
    why: 'exception values are in DATASCRUBBER_IGNORE ($error.value)',
    where: (f) => f.type === 'event' && f.path === 'exception.values[].value',
  },
  {
    secrets: ['email'],
    why: '@common:filter has no @email: only $logentry.formatted and $log.body get @email:replace',
    where: (f) => !(f.type === 'log' && f.path === 'items[].body') && f.path !== 'logentry.formatted',
  },
  { secrets: ['ip'], why: 'addresses are scrubbed only with SCRUB_IP_ADDRESSES', where: () => true },
  {
    // The page's URL, in rrweb's meta event and the replay's performance entries. Inputs are masked by the SDK, so
    // a password, card or e-mail found in a recording still fails.
    secrets: ['apiKey', 'token'],
    why:
      'recordings are scrubbed only with the project feature session-replay-recording-scrubbing, and then only ' +
      "their Sentry events (rrweb type 5), not the meta event's href",
    where: (f) => f.type === 'replay_recording',
  },
];
const keptBecause = (f: Finding) =>
  KEPT_BY_RELAY_DEFAULTS.find((k) => k.secrets.includes(f.secret as SecretName) && k.where(f))?.why;

/** The item types each SDK sends here by default, every one carrying a planted secret but the session. */
const EXPECTED_TYPES: Record<string, readonly string[]> = {
  browser: ['event', 'span', 'log', 'replay_event', 'replay_recording', 'session'],
  node: ['event', 'span', 'log'],
};
/** What each SDK sends of the planted secrets (the page never sends the password: Replay masks inputs). */
const SENT_BY: Record<string, readonly SecretName[]> = {
  browser: ['card', 'email', 'apiKey', 'token'],
  node: ['password', 'card', 'email', 'apiKey', 'token', 'ip'],
};

let stack: TelemetryStack | undefined;
let app: ServiceProcess | undefined;
let front: Front | undefined;
let tap: Tap | undefined;
let browser: Browser | undefined;
let bundle: string | undefined;
beforeAll(async () => {
  [stack, browser, bundle] = await Promise.all([startTelemetryStack(), launchChromium(), bundlePage()]);
  tap = await startTap(stack.relay.url);
  const tunnelPath = tunnelPathOf(stack.capture.dsn());
  if (!tunnelPath) throw new Error(`no tunnel path for ${stack.capture.dsn()}`);
  app = await spawnService(fileURLToPath(new URL('server.ts', appDir)), {
    env: {
      NODE_OPTIONS: `--import ${fileURLToPath(new URL('instrument.ts', appDir))}`,
      SENTRY_DSN: stack.capture.dsn(),
      // As the web's server SDK sends (SERVER_TUNNEL_URL): to the relay, under the allowed DSN (through the tap).
      SENTRY_TUNNEL: `${tap.url}${tunnelPath}`,
    },
  });
  front = await startFront({
    bundle,
    dsn: stack.capture.dsn(),
    webUrl: stack.web.url,
    webTunnelPath: tunnelPath,
    appUrl: app.url,
  });
});
afterAll(async () => {
  await browser?.close();
  await front?.close();
  await app?.kill();
  await tap?.close();
  await stack?.close();
  if (bundle) rmSync(dirname(bundle), { recursive: true, force: true });
});

/** Item types upstream received, by sender: `browser event`, `node span`, … */
const arrived = (s: TelemetryStack) =>
  new Set(s.capture.envelopes.flatMap((e) => e.items.map((item) => `${sideOf(e)} ${item.type}`)));
const missing = (s: TelemetryStack, expected: Iterable<string>) => {
  const seen = arrived(s);
  return [...new Set(expected)].filter((t) => !seen.has(t));
};
const expectedTypes = Object.entries(EXPECTED_TYPES).flatMap(([side, types]) => types.map((t) => `${side} ${t}`));

describe('SDK 11 with its defaults, through the web tunnel and the relay', () => {
  it('delivers every item type that carried a secret, with none of the secrets Relay scrubs', async () => {
    if (!stack || !browser || !front || !tap || !app) throw new Error('the suite has not started');
    const s = stack;
    const page = await browser.newPage();
    await page.setExtraHTTPHeaders({ 'x-forwarded-for': SECRETS.ip });
    const sent: Buffer[] = [];
    // Read in an interception handler, which the request waits for (see telemetry-scrubbing.test.ts).
    await page.route('**/monitoring', (route) => {
      sent.push(route.request().postDataBuffer() ?? Buffer.alloc(0));
      return route.continue();
    });
    await page.goto(`${front.url}/checkout?api_key=${SECRETS.apiKey}#access_token=${SECRETS.token}`);
    await page.waitForFunction(() => typeof window.__flushTelemetry === 'function');
    await page.fill('#email', SECRETS.email);
    await page.fill('#card', SECRETS.card);
    await page.type('#password', SECRETS.password);
    await page.click('#pay');
    const errorFrom = (side: string) =>
      s.capture.waitFor((e) => sideOf(e) === side && e.items.some((i) => i.type === 'event'), 20_000);
    await Promise.all([errorFrom('browser'), errorFrom('node')]);
    // What the SDKs still hold (spans, logs, the replay's segment) is sent now, not on their timers.
    await Promise.all([
      page.evaluate(() => window.__flushTelemetry()),
      fetch(`${app.url}/__flush`, { method: 'POST' }),
    ]);
    const deadline = Date.now() + 15_000;
    const arrival = async (expected: () => string[]) => {
      while (missing(s, expected()).length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    await arrival(() => expectedTypes);
    // Every item type that left an SDK with a secret must arrive too.
    const sentFindings = findSecrets([...sent, ...tap.bodies].map(readEnvelope), secrets);
    const carriers = sentFindings.map((f) => `${f.side} ${f.type}`);
    await arrival(() => carriers);
    await page.close();

    const sentSecrets = new Set(sentFindings.map((f) => `${f.side} ${f.secret}`));
    const unsent = Object.entries(SENT_BY).flatMap(([side, names]) =>
      names.filter((name) => !sentSecrets.has(`${side} ${name}`)).map((name) => `${side} ${name}`),
    );
    // Soft: a failure reports all three lists at once.
    expect.soft(unsent, 'planted secrets an SDK never sent (the test would prove nothing about them)').toEqual([]);
    expect.soft(missing(s, [...expectedTypes, ...carriers]), 'item types that never arrived upstream').toEqual([]);
    const findings = findSecrets(s.capture.envelopes, secrets);
    const kept = KEPT_BY_RELAY_DEFAULTS.map(({ why }) => {
      const lines = findings.filter((f) => keptBecause(f) === why).map((f) => `  ${describeFinding(f)}`);
      return lines.length > 0 ? `${why}:\n${lines.join('\n')}` : '';
    }).filter((group) => group !== '');
    expect
      .soft(
        findings.filter((f) => keptBecause(f) === undefined).map(describeFinding),
        `secrets that reached upstream where Relay's defaults scrub them\n(also forwarded, as Relay's defaults ` +
          `forward them. ${kept.join('\n')})\n`,
      )
      .toEqual([]);
  });
});
