// Sentry envelopes as the SDKs write them, for tests and benches that send them: items, a browser error event.

export const EVENT_ID = '9ec79c33ec9942ab8353589fcb2e04dc';

/** A browser-like error event (~5 KB with a 20-frame stack trace), as @sentry/browser serializes it. */
export function errorEvent(value = 'Cannot read properties of undefined (reading "id")', type = 'TypeError') {
  const frames = Array.from({ length: 20 }, (_, i) => ({
    filename: `https://shop.example.com/assets/chunk-${(i * 7919).toString(16)}.js`,
    function: `handler${i}`,
    in_app: true,
    lineno: 100 + i,
    colno: 17 + i,
  }));
  return {
    exception: { values: [{ type, value, stacktrace: { frames }, mechanism: { type: 'onerror', handled: false } }] },
    level: 'error',
    event_id: EVENT_ID,
    platform: 'javascript',
    request: { url: 'https://shop.example.com/items/42', headers: { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64)' } },
    timestamp: 1_795_000_000.123,
    environment: 'production',
    release: 'shop@1.4.2',
    sdk: { name: 'sentry.javascript.react', version: '11.12.0' },
    breadcrumbs: Array.from({ length: 10 }, (_, i) => ({
      category: 'navigation',
      timestamp: 1_795_000_000 - i,
      data: { from: `/items/${i}`, to: `/items/${i + 1}` },
    })),
    tags: { route: '/items/:id' },
  };
}

export interface ItemSpec {
  header: Record<string, unknown>;
  payload: string | Buffer;
}

/** Serializes an envelope the way the JS SDK does: JSON items without length, binary ones with. */
export function envelope(header: Record<string, unknown>, items: ItemSpec[]): Buffer {
  const parts: Buffer[] = [Buffer.from(JSON.stringify(header))];
  for (const item of items) {
    parts.push(Buffer.from(`\n${JSON.stringify(item.header)}\n`));
    parts.push(typeof item.payload === 'string' ? Buffer.from(item.payload) : item.payload);
  }
  return Buffer.concat(parts);
}

export const eventItem = (event: unknown = errorEvent()): ItemSpec => ({
  header: { type: 'event' },
  payload: JSON.stringify(event),
});

export const attachmentItem = (payload: Buffer, filename = 'blob.bin'): ItemSpec => ({
  header: { type: 'attachment', length: payload.length, filename, content_type: 'application/octet-stream' },
  payload,
});

/** A fresh event id, as the SDKs write one: 32 hex digits. */
export const newEventId = (): string => crypto.randomUUID().replaceAll('-', '');

/** A minimal, valid error envelope for a DSN with its own event id: small, for suites that count arrivals. */
export function errorEnvelope(dsn: string, eventId: string, message = `container e2e ${eventId}`): string {
  const sentAt = new Date().toISOString();
  const event = { event_id: eventId, timestamp: Date.now() / 1000, platform: 'javascript', level: 'error', message };
  return `${JSON.stringify({ event_id: eventId, dsn, sent_at: sentAt })}\n${JSON.stringify({ type: 'event' })}\n${JSON.stringify(event)}\n`;
}
