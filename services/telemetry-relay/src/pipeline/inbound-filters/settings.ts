// Which inbound filters run (INBOUND_FILTERS, INBOUND_ERROR_MESSAGES, INBOUND_RELEASES), in the order Relay runs
// them (relay-filter/src/lib.rs `should_filter`): the first that matches names the outcome.
import { browserExtensions } from './browser-extensions.ts';
import { invalidCsp } from './csp.ts';
import { chunkLoadError, reactHydrationErrors } from './generic.ts';
import { legacyBrowsers } from './legacy-browsers.ts';
import { localhost } from './localhost.ts';
import { errorMessages, releases } from './messages.ts';
import { filteredTransaction } from './transaction-name.ts';
import type { InboundFilter } from './types.ts';
import { webCrawlers } from './web-crawlers.ts';

export interface InboundFilterSettings {
  /** Relay's ids of the switchable filters that are on. */
  ids: string[];
  /** Globs of the error-message filter (on when not empty). */
  errorMessages: string[];
  /** Globs of the releases filter (on when not empty). */
  releases: string[];
}

const SWITCHABLE: readonly InboundFilter[] = [
  invalidCsp,
  localhost,
  browserExtensions,
  legacyBrowsers,
  webCrawlers,
  filteredTransaction,
  chunkLoadError,
  reactHydrationErrors,
];

export const KNOWN_FILTER_IDS: readonly string[] = SWITCHABLE.map((f) => f.id);

/** What a new Sentry project has on (sentry `set_default_inbound_filters` and the project option defaults). */
export const DEFAULT_FILTER_IDS: readonly string[] = KNOWN_FILTER_IDS.filter((id) => id !== 'localhost');

/** Globs are the project's own text: bounded like every other setting. */
export const MAX_GLOBS = 100;
export const MAX_GLOB_LENGTH = 200;

/** Problems with INBOUND_FILTERS' entries, as messages naming the entry (empty when all are known). */
export function unknownFilterIds(ids: readonly string[]): string[] {
  return ids
    .filter((id) => !KNOWN_FILTER_IDS.includes(id))
    .map((id) =>
      id === 'error-message' || id === 'release-version'
        ? `names ${JSON.stringify(id)}: that filter is on when ${id === 'error-message' ? 'INBOUND_ERROR_MESSAGES' : 'INBOUND_RELEASES'} lists its globs`
        : `names an unknown filter ${JSON.stringify(id.slice(0, 64))} (known: ${KNOWN_FILTER_IDS.join(', ')}, or default/none)`,
    );
}

/** The filter ids a list names (`default` expanded, `none` alone: no filter), and a problem per unknown id. */
export function filterIdsFrom(listed: readonly string[]): { ids: string[]; problems: string[] } {
  if (listed.length === 1 && listed[0] === 'none') return { ids: [], problems: [] };
  const ids = [...new Set(listed.flatMap((id) => (id === 'default' ? DEFAULT_FILTER_IDS : [id])))];
  return { ids: ids.filter((id) => KNOWN_FILTER_IDS.includes(id)), problems: unknownFilterIds(ids) };
}

/** A problem with a list of globs, or undefined. */
export function invalidGlobs(globs: readonly string[]): string | undefined {
  if (globs.length > MAX_GLOBS) return `lists ${globs.length} globs (at most ${MAX_GLOBS})`;
  const bad = globs.find(
    (glob) => glob.length > MAX_GLOB_LENGTH || [...glob].some((char) => char < ' ' || char === '\u007f'),
  );
  return bad === undefined
    ? undefined
    : `has a glob longer than ${MAX_GLOB_LENGTH} characters or with control characters (${JSON.stringify(bad.slice(0, 64))}…)`;
}

/** The filters to run, in Relay's order. */
export function enabledFilters(settings: InboundFilterSettings): InboundFilter[] {
  const on = (filter: InboundFilter) => settings.ids.includes(filter.id);
  const ordered: InboundFilter[] = on(invalidCsp) ? [invalidCsp] : [];
  if (settings.releases.length > 0) ordered.push(releases(settings.releases));
  if (settings.errorMessages.length > 0) ordered.push(errorMessages(settings.errorMessages));
  return [...ordered, ...SWITCHABLE.filter((filter) => filter !== invalidCsp && on(filter))];
}
