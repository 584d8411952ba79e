// An error envelope of exactly `bytes`: the event grows (breadcrumbs) up to EVENT_MAX_BYTES, the JSON the relay
// parses, filters and scrubs; beyond that one binary attachment carries the rest, as replays and minidumps do (the
// relay's MAX_EVENT_ITEM_BYTES is 1 MiB, so a 20 MiB envelope is never one event).

export const EVENT_MAX_BYTES = 64 * 1024;
/**
 * Breadcrumb text like a page's: a run of one character ('xxxx…') made V8's search for the inbound filters' needles
 * ('xtensi', 'xthelp') find a first-character candidate at every position, 2.4× the relay's CPU per 64 KB event.
 */
const WORDS = 'clicked button#add-to-cart-42 on /items/42 after 3 s; navigated to /checkout (cart of 2 items). ';
const filler = (length: number) => WORDS.repeat(Math.ceil(length / WORDS.length)).slice(0, length);

export function sizedEnvelope(dsn: string, bytes: number): Buffer {
  const header = JSON.stringify({
    event_id: '9ec79c33ec9942ab8353589fcb2e04dc',
    sent_at: '2026-11-22T00:00:00.123Z',
    sdk: { name: 'sentry.javascript.react', version: '11.12.0' },
    dsn,
  });
  const itemHeader = '{"type":"event"}';
  const eventFor = (message: string) =>
    JSON.stringify({
      event_id: '9ec79c33ec9942ab8353589fcb2e04dc',
      timestamp: 1795312800.123,
      platform: 'javascript',
      level: 'error',
      exception: { values: [{ type: 'TypeError', value: "Cannot read properties of undefined (reading 'price')" }] },
      breadcrumbs: Array.from({ length: Math.floor(message.length / 200) + 1 }, (_, i) => ({
        timestamp: 1795312790 + i,
        category: 'ui.click',
        message: message.slice(i * 200, (i + 1) * 200),
      })),
    });
  const fixed = header.length + itemHeader.length + 2; // two newlines
  const bare = eventFor('').length;
  const eventBytes = Math.max(bare, Math.min(EVENT_MAX_BYTES, bytes - fixed));
  // Each breadcrumb adds its own JSON around its 200 characters: search the message length that fits.
  let [low, high] = [0, eventBytes - bare];
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (eventFor(filler(mid)).length <= eventBytes) low = mid;
    else high = mid - 1;
  }
  // Breadcrumbs come in steps of ~60 bytes of JSON: trailing spaces (valid JSON) make the event exactly its size.
  const event = eventFor(filler(low)).padEnd(eventBytes, ' ');
  const head = `${header}\n${itemHeader}\n${event}`;
  const rest = bytes - head.length;
  if (rest < 100) return Buffer.from(head.padEnd(bytes, ' ')); // too little for an attachment: the event takes it
  const attachmentHeader = (size: number) => `\n{"type":"attachment","length":${size},"filename":"blob.bin"}\n`;
  // The attachment header's own digits count: the payload is what is left after it.
  let payload = rest - attachmentHeader(rest).length;
  while (head.length + attachmentHeader(payload).length + payload < bytes) payload++;
  return Buffer.concat([Buffer.from(head + attachmentHeader(payload)), Buffer.alloc(payload, 0xa5)]);
}
