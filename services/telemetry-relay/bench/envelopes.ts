// The payloads the benchmark sends.

/**
 * A realistic browser error envelope: ~5 KB, a TypeError with a 20-frame stack trace, breadcrumbs, request, tags.
 * With `secrets`, the same event carrying what the relay scrubs (a bearer token, a password, a card number).
 */
export function browserErrorEnvelope(dsn: string, secrets = false): Buffer {
  const frames = Array.from({ length: 20 }, (_, i) => ({
    filename: `https://shop.example.com/assets/chunk-${(i * 7919).toString(16)}.js`,
    abs_path: `https://shop.example.com/assets/chunk-${(i * 7919).toString(16)}.js`,
    function: `ProductPage.handle${['Click', 'Submit', 'Load', 'Render'][i % 4]}${i}`,
    in_app: i > 3,
    lineno: 1000 + i * 37,
    colno: 12 + i,
  }));
  const event = {
    event_id: '9ec79c33ec9942ab8353589fcb2e04dc',
    timestamp: 1795312800.123,
    platform: 'javascript',
    level: 'error',
    environment: 'production',
    release: 'shop@1.4.2',
    exception: {
      values: [
        {
          type: 'TypeError',
          value: "Cannot read properties of undefined (reading 'price')",
          stacktrace: { frames },
          mechanism: { type: 'auto.browser.global_handlers.onerror', handled: false },
        },
      ],
    },
    breadcrumbs: Array.from({ length: 8 }, (_, i) => ({
      timestamp: 1795312790 + i,
      category: i % 2 ? 'ui.click' : 'navigation',
      message: i % 2 ? `button#add-to-cart-${i}` : undefined,
      data: i % 2 ? undefined : { from: `/items/${i}`, to: `/items/${i + 1}` },
    })),
    request: {
      url: 'https://shop.example.com/items/42',
      headers: {
        'User-Agent':
          'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
        Referer: 'https://shop.example.com/items',
      },
    },
    contexts: {
      trace: { trace_id: '4c79f60c11214eb38604f4ae0781bfb2', span_id: 'fa90fdead5f74052', op: 'pageload' },
      browser: { name: 'Chrome', version: '156.0.0' },
      os: { name: 'Linux' },
    },
    tags: { route: '/items/:id', locale: 'en-GB' },
    ...(secrets
      ? {
          extra: { password: 'hunter2', note: 'paid with 4111 1111 1111 1111' },
          logentry: { formatted: 'checkout failed with Bearer eyJhbGciOiJIUzI1NiJ9.e30.x' },
        }
      : {}),
    user: { ip_address: '{{auto}}' },
    sdk: {
      name: 'sentry.javascript.react',
      version: '11.12.0',
      integrations: [
        'InboundFilters',
        'FunctionToString',
        'BrowserApiErrors',
        'Breadcrumbs',
        'GlobalHandlers',
        'LinkedErrors',
        'Dedupe',
        'HttpContext',
        'BrowserSession',
        'BrowserTracing',
      ],
      packages: [{ name: 'npm:@sentry/react', version: '11.12.0' }],
    },
  };
  const header = {
    event_id: event.event_id,
    sent_at: '2026-11-22T00:00:00.123Z',
    sdk: { name: 'sentry.javascript.react', version: '11.12.0' },
    dsn,
    trace: {
      environment: 'production',
      release: 'shop@1.4.2',
      public_key: 'benchkey',
      trace_id: '4c79f60c11214eb38604f4ae0781bfb2',
      sample_rate: '1',
      sampled: 'true',
    },
  };
  return Buffer.from(`${JSON.stringify(header)}\n{"type":"event"}\n${JSON.stringify(event)}`);
}

/** 10 MiB in 100 binary attachments next to one event: the worst legitimate envelope a page sends. */
export function largeEnvelope(dsn: string): Buffer {
  const parts: Buffer[] = [browserErrorEnvelope(dsn)];
  const size = Math.floor((10 * 1024 * 1024) / 100);
  for (let i = 0; i < 100; i++) {
    const payload = Buffer.alloc(size, i);
    payload[0] = 0x0a;
    parts.push(Buffer.from(`\n{"type":"attachment","length":${size},"filename":"blob-${i}.bin"}\n`), payload);
  }
  return Buffer.concat(parts);
}
