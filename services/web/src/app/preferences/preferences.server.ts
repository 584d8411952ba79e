// The visitor's preferences, kept in a cookie: read for every page (the root and catalog loaders), written by the
// preferences page's action.
import { createCookie } from 'react-router';
import { DEFAULT_PREFERENCES, type Preferences, validatePreferences } from './preferences.ts';

// Stored in a cookie so the service stays stateless. Not secret, so not signed; validated on every read.
const preferencesCookie = (secure: boolean) =>
  createCookie('prefs', { path: '/', sameSite: 'lax', httpOnly: true, secure, maxAge: 60 * 60 * 24 * 365 });
const cookies = { secure: preferencesCookie(true), plain: preferencesCookie(false) };

/** The cookie to write, Secure everywhere but the development server. */
export const preferencesCookieFor = (secure: boolean) => (secure ? cookies.secure : cookies.plain);

const MAX_COOKIE_LENGTH = 1024;

export function readPreferences(request: Request): Preferences {
  const header = request.headers.get('cookie');
  if (!header?.includes('prefs=')) return DEFAULT_PREFERENCES;
  const match = /(?:^|;\s*)prefs=([^;]*)/.exec(header);
  // A valid cookie is under 200 bytes; a longer one is not decoded at all.
  if ((match?.[1]?.length ?? 0) > MAX_COOKIE_LENGTH) return DEFAULT_PREFERENCES;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(decodeURIComponent(match?.[1] ?? ''), 'base64').toString());
    const result = validatePreferences(
      decoded && typeof decoded === 'object' ? (decoded as Record<string, unknown>) : {},
    );
    return result.ok ? result.value : DEFAULT_PREFERENCES;
  } catch {
    return DEFAULT_PREFERENCES;
  }
}
