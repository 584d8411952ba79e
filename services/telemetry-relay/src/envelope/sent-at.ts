// Keeps Sentry's clock-drift correction from moving the events of an envelope the relay held for a while.

/**
 * Sentry corrects timestamps by `received_at - sent_at` from 55 minutes apart (Relay's clock-drift processor), so an
 * envelope held an hour would have its events moved an hour ahead: `sent_at` is moved forward by the time held, and
 * only that value in the header line is rewritten.
 */
export function shiftSentAt(bytes: Buffer, heldMs: number): Buffer {
  const newline = bytes.indexOf(0x0a);
  const headerEnd = newline === -1 ? bytes.length : newline;
  const line = bytes.toString('utf8', 0, headerEnd);
  let header: unknown;
  try {
    header = JSON.parse(line);
  } catch {
    return bytes;
  }
  const sentAt = (header as { sent_at?: unknown } | null)?.sent_at;
  if (typeof sentAt !== 'string') return bytes;
  const time = Date.parse(sentAt);
  if (Number.isNaN(time)) return bytes;
  const quoted = JSON.stringify(sentAt);
  const replaced = line.replace(
    new RegExp(`("sent_at"\\s*:\\s*)${escapeRegExp(quoted)}`),
    (_all, key: string) => `${key}${JSON.stringify(new Date(time + heldMs).toISOString())}`,
  );
  if (replaced === line) return bytes;
  return Buffer.concat([Buffer.from(replaced), bytes.subarray(headerEnd)]);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
