// Reading the inbound filters' environment variables into settings.
import type { EnvReader } from '@app/service-kit';
import {
  DEFAULT_FILTER_IDS,
  type InboundFilterSettings,
  invalidGlobs,
  KNOWN_FILTER_IDS,
  unknownFilterIds,
} from './settings.ts';

/**
 * INBOUND_FILTERS: Relay's ids of the filters to run, `default` (a new Sentry project's set) or `none`;
 * INBOUND_ERROR_MESSAGES / INBOUND_RELEASES: globs that turn on the error-message and releases filters.
 */
export function readInboundFilters(reader: EnvReader): InboundFilterSettings {
  const listed = reader.list('INBOUND_FILTERS', ['default']);
  let ids: string[];
  if (listed.length === 1 && listed[0] === 'none') ids = [];
  else {
    ids = [...new Set(listed.flatMap((id) => (id === 'default' ? DEFAULT_FILTER_IDS : [id])))];
    for (const problem of unknownFilterIds(ids)) reader.check('INBOUND_FILTERS', problem);
    ids = ids.filter((id) => KNOWN_FILTER_IDS.includes(id));
  }
  const errorMessages = reader.list('INBOUND_ERROR_MESSAGES');
  reader.check('INBOUND_ERROR_MESSAGES', invalidGlobs(errorMessages));
  const releases = reader.list('INBOUND_RELEASES');
  reader.check('INBOUND_RELEASES', invalidGlobs(releases));
  return { ids, errorMessages, releases };
}
