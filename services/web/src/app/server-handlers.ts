// Loaders and actions, by route id. Server-only: never imported by the browser bundle.
import type { ServerHandlers } from '../framework/route-table.ts';
import { catalogItemLoader, catalogListLoader } from './catalog/catalog.server.ts';
import { diagnosticsLoader } from './diagnostics/diagnostics.server.ts';
import { notFoundLoader } from './not-found.server.ts';
import { preferencesAction, preferencesLoader, rootLoader } from './preferences/preferences.server.ts';

export const serverHandlers: Record<string, ServerHandlers> = {
  root: { loader: rootLoader },
  'catalog-list': { loader: catalogListLoader },
  'catalog-item': { loader: catalogItemLoader },
  preferences: { loader: preferencesLoader, action: preferencesAction },
  diagnostics: { loader: diagnosticsLoader },
  'not-found': { loader: notFoundLoader },
};
