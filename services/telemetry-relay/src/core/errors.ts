// Why the relay refuses an envelope: one error type carrying the status, the client's reason and a bounded detail.
import { quoteBounded } from '@app/service-kit';

/** Why an envelope was refused; `code` is the `error` field of the JSON answer and the metrics' `reason` label. */
export type RejectCode =
  | 'malformed'
  | 'empty'
  | 'missing_dsn'
  | 'invalid_dsn'
  | 'dsn_not_allowed'
  | 'origin_not_allowed'
  | 'too_large'
  | 'unsupported_encoding'
  | 'unsupported_type'
  | 'body_timeout'
  | 'rate_limited'
  | 'spool_full'
  | 'client_spool_full'
  | 'overloaded'
  | 'client_overloaded'
  | 'draining'
  | 'quota_exceeded'
  | 'page_token_missing'
  | 'page_token_expired'
  | 'page_token_invalid';

const STATUS: Record<RejectCode, number> = {
  malformed: 400,
  empty: 400,
  missing_dsn: 400,
  invalid_dsn: 403,
  dsn_not_allowed: 403,
  // A page on another host that no project lists (decision 050).
  origin_not_allowed: 403,
  too_large: 413,
  unsupported_encoding: 415,
  unsupported_type: 415,
  body_timeout: 408,
  rate_limited: 429,
  // The spool is full: this relay's condition (503 + a short Retry-After), not a limit for every SDK to obey.
  spool_full: 503,
  // This client's network keeps its share of the spool already: only it is asked to wait.
  client_spool_full: 429,
  // The process is short of memory: every client should back off (Retry-After), and the load balancer may retry.
  overloaded: 503,
  // This client holds its share of the memory budget already: only it is asked to slow down.
  client_overloaded: 429,
  draining: 503,
  // Every item was over a local quota (pipeline/quota/): answered as Sentry answers its own quotas.
  quota_exceeded: 429,
  // The project accepts envelopes from its own pages only (pipeline/quota/stage.ts): no, an expired or a bad token.
  page_token_missing: 403,
  page_token_expired: 403,
  page_token_invalid: 403,
};

/** Longest detail a refusal carries (its body and its log line): a backstop behind `quote`. */
export const MAX_DETAIL_CHARS = 1024;

/**
 * Client text as a refusal or a log line may quote it: JSON-escaped (no control characters or newlines reach a
 * log), at most `max` characters of it, and how much was left out (service-kit's quoteBounded, 48 by default).
 */
export const quote = (text: string, max = 48): string => quoteBounded(text, max);

/** A refusal answered with a 4xx (or 503) and `{"error": code, "detail": detail}`. */
export class RelayError extends Error {
  readonly code: RejectCode;
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  constructor(code: RejectCode, detail: string, headers: Record<string, string> = {}) {
    super(detail.length > MAX_DETAIL_CHARS ? `${detail.slice(0, MAX_DETAIL_CHARS - 1)}…` : detail);
    this.name = 'RelayError';
    this.code = code;
    this.statusCode = STATUS[code];
    this.headers = headers;
  }
}
