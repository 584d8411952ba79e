// Client navigations as Sentry `navigation` transactions, named by route pattern and started when the router starts
// navigating. Sentry's React Router integration starts them only once a data router commits the new location, after
// the loaders ran: the page-data and action requests then carried the previous page's trace, and the server's spans
// for them landed there. Here the span is active before the first request, so both join the navigation's trace.
import { getClient, type Span, spanToJSON, startBrowserTracingNavigationSpan } from '@sentry/react';
import { type DataRouter, type Location, matchRoutes } from 'react-router';
import { patternOf } from '../../framework/shared/route-pattern.ts';

export function traceNavigations(router: DataRouter): void {
  const nameOf = (location: Location) => patternOf(matchRoutes(router.routes, location) ?? []);
  const source = { 'sentry.segment.name.source': 'route' } as const;
  // updateName alone would mark the name "custom": it stays a route pattern.
  const rename = (span: Span, location: Location) => {
    const name = nameOf(location);
    if (name !== spanToJSON(span).name) span.updateName(name).setAttributes(source);
  };
  const start = (location: Location): Span | undefined => {
    const client = getClient();
    if (!client) return undefined;
    return startBrowserTracingNavigationSpan(
      client,
      {
        name: nameOf(location),
        op: 'navigation',
        attributes: { 'sentry.origin': 'auto.navigation.react.reactrouter', ...source },
      },
      { url: location.pathname },
    );
  };

  /** The navigation under way (from leaving idle to idle again); a redirect or a second click renames it. */
  let current: Span | undefined;
  let committed = router.state.location.key;
  // The SDK loads after hydration (telemetry.ts): a navigation may be what made it load, and be under way already.
  if (router.state.navigation.state !== 'idle') current = start(router.state.navigation.location);
  router.subscribe((state) => {
    const target = state.navigation.state === 'idle' ? undefined : state.navigation.location;
    if (target) {
      if (current) rename(current, target);
      else current = start(target);
      return;
    }
    if (state.location.key !== committed) {
      committed = state.location.key;
      // A navigation with nothing to load commits at once, without leaving idle.
      if (current) rename(current, state.location);
      else start(state.location);
    }
    current = undefined;
  });
}
