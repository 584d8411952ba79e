// The preferences page's loader: the saved values, and whether they were just saved.
import type { LoaderFunctionArgs } from 'react-router';
import { readPreferences } from '../../preferences/preferences.server.ts';
import type { Preferences } from '../../preferences/preferences.ts';

export interface PreferencesData {
  preferences: Preferences;
  saved: boolean;
}

export function loader({ request, url }: LoaderFunctionArgs): PreferencesData {
  return { preferences: readPreferences(request), saved: url.searchParams.get('saved') === '1' };
}
