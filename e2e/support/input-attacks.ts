// Issue 37's hostile inputs: valid events whose strings cost the relay's patterns most (each was quadratic on V8's
// backtracking engine before decision 045), and keys that name Object.prototype's members. Each builds one envelope
// of about `bytes` bytes with its own event id, so the suite can tell whether it was delivered.
import { newEventId } from './containers.ts';

/** `unit` repeated to `chars` characters. */
const fill = (unit: string, chars: number) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);

function eventEnvelope(dsn: string, event: Record<string, unknown>): { body: string; eventId: string } {
  const eventId = newEventId();
  const payload = JSON.stringify({ event_id: eventId, timestamp: Date.now() / 1000, platform: 'javascript', ...event });
  return {
    eventId,
    body: `${JSON.stringify({ event_id: eventId, dsn, sent_at: new Date().toISOString() })}\n{"type":"event"}\n${payload}\n`,
  };
}

export interface InputAttack {
  label: string;
  build: (dsn: string) => { body: string; eventId: string };
}

/**
 * The four quadratic inputs of issue 37 at 600 KB (as the live one), and runs of card- and SSN-shaped digits sized so
 * that their scrubbed form (a `[Filtered]` and a `_meta` remark each) stays within the 1 MiB event limit.
 */
export const QUADRATIC_INPUTS: InputAttack[] = [
  {
    label: 'User-Agent of Trident/1',
    build: (dsn) => eventEnvelope(dsn, { request: { headers: { 'User-Agent': fill('Trident/1', 600_000) } } }),
  },
  { label: 'a value of token', build: (dsn) => eventEnvelope(dsn, { extra: { note: fill('token', 600_000) } }) },
  {
    label: 'a message of a. then an email',
    build: (dsn) => eventEnvelope(dsn, { message: `${fill('a.', 600_000)} x@example.com` }),
  },
  {
    label: 'PEM header lines',
    build: (dsn) => eventEnvelope(dsn, { extra: { key: fill('-----BEGIN RSA PRIVATE KEY-----\n', 600_000) } }),
  },
  {
    label: 'card-shaped digits',
    build: (dsn) => eventEnvelope(dsn, { extra: { paid: fill('4571234567890111 ', 250_000) } }),
  },
  { label: 'SSN-shaped digits', build: (dsn) => eventEnvelope(dsn, { extra: { ssn: fill('078-05-1120 ', 200_000) } }) },
  { label: 'one run of digits', build: (dsn) => eventEnvelope(dsn, { extra: { digits: fill('4', 900_000) } }) },
];

/** A key named `__proto__` under `extra`, the tunnel's shape of the crash in issue 37. */
export const protoEvent = (dsn: string) =>
  eventEnvelope(dsn, { message: 'prototype keys', extra: JSON.parse('{"__proto__":{"no_cache":"password"}}') });

/** A CSP report with a top-level `__proto__` member (JSON text: JSON.stringify would drop it). */
export const protoCspReport = () =>
  '{"__proto__":{"no_cache":"password"},"csp-report":{"document-uri":"https://shop.example.com/","violated-directive":"script-src","blocked-uri":"https://evil.example.com/x.js"}}';
