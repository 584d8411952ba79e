// Data scrubbing end to end (issue 29): the real browser SDK in Chromium sends secrets through the web's tunnel to a
// real relay with its default settings; the capture server (Sentry) sees none of them. The page's own SDK records
// them as an app's code would make it: a debug log of the preferences form with a password typed into it, a debug
// log of the Authorization header a fetch used, a console error naming a card number. The browser's own tunnel POSTs
// are read too, so the test shows the secrets did leave the browser and were removed on the way. (A token in a fetch
// URL's query is already filtered by @sentry/browser 11 itself, when its parameter name looks sensitive.)
import { tunnelPathOf } from '@app/telemetry-rules/tunnel-path';
import { afterEach, describe, expect, it } from 'vitest';
import { exceptionValue, itemOf, telemetrySuite } from '../support/telemetry-stack.ts';

const suite = telemetrySuite();
afterEach(() => suite.stack.capture.clear());

const PASSWORD = 'hunter2-Preferences!';
const TOKEN = 'ya29.a0AfB_byC-e2e-access-token';
const CARD = '4111 1111 1111 1111';

describe('secrets recorded in the browser do not reach Sentry', () => {
  it('filters a typed password, a bearer token and a card number recorded as breadcrumbs', async () => {
    const { page } = await suite.open('/preferences');
    const sent: string[] = [];
    // Read in an interception handler, which the request waits for: a 'request' event can arrive after the
    // envelope has already reached the capture server on a loaded machine (CI saw `sent` empty once).
    await page.route(`**${tunnelPathOf(suite.stack.capture.dsn())}`, (route) => {
      sent.push(route.request().postData() ?? '');
      return route.continue();
    });
    // A password field in the preferences form (the product has none: added here as a "confirm with your password"
    // step would be), typed into like a user does.
    await page.evaluate(() => {
      const input = document.createElement('input');
      input.type = 'password';
      input.id = 'currentPassword';
      input.name = 'currentPassword';
      document.querySelector('form')?.append(input);
    });
    await page.fill('#displayName', 'Ada');
    await page.fill('#currentPassword', PASSWORD);
    await page.evaluate(
      async ({ token, card }) => {
        const form = document.querySelector('form') as HTMLFormElement;
        // What a developer's debug logging records as a console breadcrumb, the form's values with it.
        console.log('saving preferences', Object.fromEntries(new FormData(form)));
        const authorization = `Bearer ${token}`;
        await fetch('/catalog', { headers: { authorization } }).catch(() => undefined);
        console.log('catalog request sent with', authorization);
        console.error(`payment declined for card ${card}`);
        setTimeout(() => {
          throw new Error('checkout failed after saving preferences');
        });
      },
      { token: TOKEN, card: CARD },
    );
    const envelope = await suite.stack.capture.waitFor(
      (e) => exceptionValue(itemOf(e, 'event')).includes('checkout failed after saving preferences'),
      20_000,
    );
    const event = itemOf(envelope, 'event') as { breadcrumbs?: Array<Record<string, unknown>> };
    const crumbs = JSON.stringify(event.breadcrumbs);
    expect(crumbs).toContain('[Filtered]');
    expect(crumbs).toContain('payment declined for card [Filtered]');
    expect(crumbs).toContain('"currentPassword":"[Filtered]"');
    expect(crumbs).toContain('"category":"fetch"');

    // The browser sent them; upstream has none of them, in any item that arrived.
    expect(sent.join('\n')).toContain(PASSWORD);
    expect(sent.join('\n')).toContain(TOKEN);
    expect(sent.join('\n')).toContain(CARD);
    const upstream = suite.stack.capture.envelopes.map((e) => e.body.toString('utf8')).join('\n');
    expect(upstream).not.toContain(PASSWORD);
    expect(upstream).not.toContain(TOKEN);
    expect(upstream).not.toContain(CARD);
    await page.close();
  });
});
