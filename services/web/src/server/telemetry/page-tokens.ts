// The page token the relay asks for when a project requires it (its PAGE_TOKEN_SECRET, issue 40): signed here with
// the same secret over the DSN's public key and an expiry, put into each page and each page-data answer, and sent
// by the browser SDK as X-Page-Token. The same token is handed out until half its lifetime is gone, then renewed.
import { signPageToken } from '@app/service-kit/page-token';

/** A function returning a token for `dsn`'s public key that stays good for at least half of `ttlSeconds`. */
export function createPageTokens(
  secret: string,
  dsn: string,
  ttlSeconds: number,
  now: () => number = Date.now,
): () => string {
  const publicKey = /^https?:\/\/([^@:/]+)/.exec(dsn)?.[1] ?? '';
  let token = '';
  let renewAt = 0;
  return () => {
    const seconds = Math.floor(now() / 1000);
    if (seconds >= renewAt) {
      token = signPageToken(secret, publicKey, seconds + ttlSeconds);
      renewAt = seconds + Math.floor(ttlSeconds / 2);
    }
    return token;
  };
}
