// The fixture page's script, bundled at test time (bundle.ts) from the real @sentry/browser: the SDK's defaults
// (span streaming, logs, default dataCollection and sendDefaultPii; 11.12 has no `enableLogs` option any more),
// plus what an app turns on to get traces and replays. The checkout form's code leaks the way app code does: it
// reads a token from the URL fragment (an OAuth implicit flow) into an Authorization header and a span attribute,
// puts the query's API key on its API call, and logs and throws with the card and e-mail typed into the form.
import * as Sentry from '@sentry/browser';

declare global {
  interface Window {
    /** Written into the page by the server: where this page's SDK reports. */
    __fixture: { dsn: string; release: string };
    /** For the test: flush what the SDK holds (spans, logs, the replay's segment). */
    __flushTelemetry: () => Promise<void>;
  }
}

Sentry.init({
  dsn: window.__fixture.dsn,
  release: window.__fixture.release,
  environment: 'e2e',
  tunnel: '/monitoring',
  tracesSampleRate: 1,
  replaysSessionSampleRate: 1,
  integrations: [Sentry.browserTracingIntegration(), Sentry.replayIntegration()],
});

window.__flushTelemetry = async () => {
  await Sentry.getReplay()?.flush();
  await Sentry.flush(5_000);
};

const form = document.querySelector('form') as HTMLFormElement;
form.addEventListener('submit', (submitted) => {
  submitted.preventDefault();
  const fields = new FormData(form);
  const card = String(fields.get('card'));
  const email = String(fields.get('email'));
  const token = new URLSearchParams(location.hash.slice(1)).get('access_token');
  const apiKey = new URLSearchParams(location.search).get('api_key');
  void Sentry.startSpan({ name: 'checkout.submit', op: 'ui.action' }, async (span) => {
    span.setAttribute('app.access_token', token ?? '');
    const response = await fetch(`/api/checkout?api_key=${apiKey}#access_token=${token}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields as unknown as Record<string, string>),
    });
    Sentry.logger.error(Sentry.logger.fmt`checkout failed for ${email} paying with ${card}`, {
      'checkout.card': card,
      'customer.email': email,
    });
    // Thrown from a timer: the SDK's global handler reports it as an app's uncaught error would be.
    setTimeout(() => {
      throw new Error(`payment declined (${response.status}) for card ${card}, receipt to ${email}`);
    });
  });
});
