// The page token (issue 40): the web signs `publicKey.expiry` with a secret it shares with the relay, puts the token
// into each page, and the browser SDK sends it as a header; the relay refuses a project's envelopes without one.
// A DSN is public, so this is what makes "only real page views can send" true. Both services import this file.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The request header the browser SDK's transport sends the token in (lower case, as Node reads it). */
export const PAGE_TOKEN_HEADER = 'x-page-token';

/** Why a token was refused; `missing`, `expired`, `bad` name what a 403 says was wrong. */
export type PageTokenProblem = 'missing' | 'malformed' | 'expired' | 'bad';

export type PageTokenCheck = { ok: true; expiresAt: number } | { ok: false; problem: PageTokenProblem; detail: string };

export interface PageTokenVerifyOptions {
  /** Seconds a token stays good past its expiry, for the web's and the relay's clocks disagreeing. */
  skewSeconds: number;
  /** Longest lifetime a token may claim (expiry − now): a leaked secret-less token cannot be made to live longer. */
  maxTtlSeconds: number;
}

/** The longest token text read (a 10-digit expiry, a dot and 43 base64url characters fit with room). */
const MAX_TOKEN_CHARS = 128;
const TOKEN = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

const mac = (secret: string, publicKey: string, expiresAt: number): Buffer =>
  createHmac('sha256', secret).update(`${publicKey}.${expiresAt}`).digest();

/** `<expiry seconds>.<base64url HMAC-SHA256(secret, "publicKey.expiry")>`. */
export function signPageToken(secret: string, publicKey: string, expiresAt: number): string {
  return `${expiresAt}.${mac(secret, publicKey, expiresAt).toString('base64url')}`;
}

/** Checks a token for `publicKey` at `nowSeconds`; the MAC is compared in constant time. */
export function verifyPageToken(
  token: string | undefined,
  secret: string,
  publicKey: string,
  nowSeconds: number,
  options: PageTokenVerifyOptions,
): PageTokenCheck {
  if (token === undefined || token === '') {
    return {
      ok: false,
      problem: 'missing',
      detail: `no ${PAGE_TOKEN_HEADER} header; this project accepts envelopes from its own pages only`,
    };
  }
  const match = token.length > MAX_TOKEN_CHARS ? null : TOKEN.exec(token);
  if (!match) {
    return { ok: false, problem: 'malformed', detail: `the ${PAGE_TOKEN_HEADER} header is not <expiry>.<signature>` };
  }
  const expiresAt = Number(match[1]);
  const expected = mac(secret, publicKey, expiresAt);
  const given = Buffer.from(match[2] as string, 'base64url');
  // Checked before the expiry: an expired forgery is a forgery, and says nothing about the clocks.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return {
      ok: false,
      problem: 'bad',
      detail: `the ${PAGE_TOKEN_HEADER} signature does not match this project's key`,
    };
  }
  if (expiresAt + options.skewSeconds < nowSeconds) {
    return {
      ok: false,
      problem: 'expired',
      detail: `the ${PAGE_TOKEN_HEADER} expired ${nowSeconds - expiresAt} s ago (allowed skew ${options.skewSeconds} s); reload the page`,
    };
  }
  if (expiresAt - nowSeconds > options.maxTtlSeconds + options.skewSeconds) {
    return {
      ok: false,
      problem: 'bad',
      detail: `the ${PAGE_TOKEN_HEADER} claims a lifetime over ${options.maxTtlSeconds} s`,
    };
  }
  return { ok: true, expiresAt };
}
