// The root layout's loader: the visitor's preferences, for the theme and greeting on every page.
import type { LoaderFunctionArgs } from 'react-router';
import { readPreferences } from '../preferences/preferences.server.ts';
import type { Preferences } from '../preferences/preferences.ts';

export interface RootData {
  preferences: Preferences;
}

export function loader({ request }: LoaderFunctionArgs): RootData {
  return { preferences: readPreferences(request) };
}
