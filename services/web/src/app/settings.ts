// What loaders and actions take from the service's configuration: set by server/app.ts in the context React Router
// hands every loader and action (`context.get(routeSettings)`), so a route folder needs no wiring of its own.
import { createContext } from 'react-router';

export interface RouteSettings {
  /** How long the item page's related items take (the deferred, streamed part). */
  relatedDelayMs: number;
  /** Cookies are sent with Secure (everywhere but the development server). */
  secureCookies: boolean;
}

export const routeSettings = createContext<RouteSettings>();
