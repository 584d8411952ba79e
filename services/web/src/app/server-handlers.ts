// Loaders and actions, by route id. Server-only: never imported by the browser bundle.
import type { ServerHandlers } from '../framework/shared/route-entry.ts';
import { createPreferencesAction, preferencesLoader, rootLoader } from './preferences/preferences.server.ts';
import { notFoundLoader } from './routes/$/loader.server.ts';
import { catalogListLoader, createCatalogItemLoader } from './routes/catalog/loader.server.ts';
import { createDiagnosticsLoader } from './routes/diagnostics.$failure/loader.server.ts';

/** What the handlers take from the service's configuration. */
export interface HandlerSettings {
  /** How long the item page's related items take (the deferred, streamed part). */
  relatedDelayMs: number;
  /** Cookies are sent with Secure (everywhere but the development server). */
  secureCookies: boolean;
}

export function createServerHandlers(settings: HandlerSettings): Record<string, ServerHandlers> {
  return {
    root: { loader: rootLoader },
    'catalog-list': { loader: catalogListLoader },
    'catalog-item': { loader: createCatalogItemLoader(settings.relatedDelayMs) },
    preferences: { loader: preferencesLoader, action: createPreferencesAction(settings.secureCookies) },
    diagnostics: { loader: createDiagnosticsLoader(settings.relatedDelayMs) },
    'not-found': { loader: notFoundLoader },
  };
}
