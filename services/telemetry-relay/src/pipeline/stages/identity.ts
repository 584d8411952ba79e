// Who sent the envelope, as headers upstream reads (../identity.ts).
import type { Flight } from '../flight.ts';
import { identityHeaders } from '../identity.ts';
import { proceed, type Stage } from '../stage.ts';

/** X-Sentry-Forwarded-For (unless the project scrubs IP addresses) and the browser's listed headers. */
export const identityStage: Stage<Flight> = (flight) => {
  const { settings } = flight.authorized.settings;
  flight.forwardHeaders = identityHeaders(flight.client, flight.requestHeaders, !settings.scrub.scrubIpAddresses);
  return proceed(flight);
};
