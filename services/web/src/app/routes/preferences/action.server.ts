// The preferences form's action: validated values into the cookie and a redirect, or the form back with its errors.
import { type ActionFunctionArgs, data } from 'react-router';
import { preferencesCookieFor } from '../../preferences/preferences.server.ts';
import { type FieldErrors, LIMITS, validatePreferences } from '../../preferences/preferences.ts';
import { routeSettings } from '../../settings.ts';
import { redirect } from '../../signals.ts';

export interface PreferencesActionData {
  errors: FieldErrors;
  values: Record<string, string>;
}

const MAX_ECHOED_VALUE = 2 * LIMITS.displayNameMax;

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const values: Record<string, string> = {};
  for (const key of ['displayName', 'pageSize', 'theme']) {
    const value = form.get(key);
    // Echoed into the form when refused: as much as a field could hold, not what was sent.
    values[key] = typeof value === 'string' ? value.slice(0, MAX_ECHOED_VALUE) : '';
  }
  const result = validatePreferences(values);
  if (!result.ok) return data<PreferencesActionData>({ errors: result.errors, values }, { status: 400 });
  const cookie = preferencesCookieFor(context.get(routeSettings).secureCookies);
  throw redirect('/preferences?saved=1', { headers: { 'Set-Cookie': await cookie.serialize(result.value) } });
}
