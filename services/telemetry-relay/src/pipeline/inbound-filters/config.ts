// Reading the inbound filters' environment variables into settings.
import type { EnvReader } from '@app/service-kit';
import { filterIdsFrom, type InboundFilterSettings, invalidGlobs } from './settings.ts';

/**
 * INBOUND_FILTERS: Relay's ids of the filters to run, `default` (a new Sentry project's set) or `none`;
 * INBOUND_ERROR_MESSAGES / INBOUND_RELEASES: globs that turn on the error-message and releases filters.
 */
export function readInboundFilters(reader: EnvReader): InboundFilterSettings {
  const { ids, problems } = filterIdsFrom(reader.list('INBOUND_FILTERS', ['default']));
  for (const problem of problems) reader.check('INBOUND_FILTERS', problem);
  const errorMessages = reader.list('INBOUND_ERROR_MESSAGES');
  reader.check('INBOUND_ERROR_MESSAGES', invalidGlobs(errorMessages));
  const releases = reader.list('INBOUND_RELEASES');
  reader.check('INBOUND_RELEASES', invalidGlobs(releases));
  return { ids, errorMessages, releases };
}
