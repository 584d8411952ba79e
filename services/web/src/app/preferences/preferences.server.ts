// The visitor's preferences, kept in a cookie: read for every page, shown and changed on the preferences page.
import { type ActionFunctionArgs, createCookie, data, type LoaderFunctionArgs } from 'react-router';
import { redirect } from '../signals.ts';
import { DEFAULT_PREFERENCES, type FieldErrors, LIMITS, type Preferences, validatePreferences } from './preferences.ts';

// Stored in a cookie so the service stays stateless. Not secret, so not signed; validated on every read.
const preferencesCookie = (secure: boolean) =>
  createCookie('prefs', { path: '/', sameSite: 'lax', httpOnly: true, secure, maxAge: 60 * 60 * 24 * 365 });

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

export interface RootData {
  preferences: Preferences;
}

export function rootLoader({ request }: LoaderFunctionArgs): RootData {
  return { preferences: readPreferences(request) };
}

export interface PreferencesData {
  preferences: Preferences;
  saved: boolean;
}

export function preferencesLoader({ request, url }: LoaderFunctionArgs): PreferencesData {
  return { preferences: readPreferences(request), saved: url.searchParams.get('saved') === '1' };
}

export interface PreferencesActionData {
  errors: FieldErrors;
  values: Record<string, string>;
}

const MAX_ECHOED_VALUE = 2 * LIMITS.displayNameMax;

export function createPreferencesAction(secureCookie: boolean) {
  const cookie = preferencesCookie(secureCookie);
  return async ({ request }: ActionFunctionArgs) => {
    const form = await request.formData();
    const values: Record<string, string> = {};
    for (const key of ['displayName', 'pageSize', 'theme']) {
      const value = form.get(key);
      // Echoed into the form when refused: as much as a field could hold, not what was sent.
      values[key] = typeof value === 'string' ? value.slice(0, MAX_ECHOED_VALUE) : '';
    }
    const result = validatePreferences(values);
    if (!result.ok) return data<PreferencesActionData>({ errors: result.errors, values }, { status: 400 });
    throw redirect('/preferences?saved=1', { headers: { 'Set-Cookie': await cookie.serialize(result.value) } });
  };
}
