// An envelope on its way through the item stages: what each stage reads, and what it leaves for the next and the answer.
import type { IncomingHttpHeaders } from 'node:http';
import type { Discarded, Target } from '../core/types.ts';
import type { Envelope, EnvelopeItem } from '../envelope/types.ts';
import type { DropReason } from '../ops/ledger.ts';
import type { Authorized } from './authorize.ts';
import type { FilterResult } from './filter.ts';
import type { InboundFilterResult } from './inbound-filters/stage.ts';
import type { ItemTexts } from './item-text.ts';
import type { QuotaSettings } from './quota/settings.ts';
import type { ScrubResult } from './scrub.ts';

/** What the stages read of a project (projects/project.ts compiles it once per load). */
export interface ProjectStages {
  readonly quotas: QuotaSettings;
  readonly filter: (envelope: Envelope, texts?: ItemTexts) => FilterResult;
  readonly inboundFilter: (items: EnvelopeItem[], texts?: ItemTexts) => InboundFilterResult;
  /** undefined when the settings scrub nothing. */
  readonly scrub: ((items: EnvelopeItem[], envelopeBytes: number, texts?: ItemTexts) => ScrubResult) | undefined;
  /** Origins of callers on other hosts that may post; undefined: not checked. */
  readonly origins: ReadonlySet<string> | undefined;
  readonly settings: { readonly scrub: { readonly scrubIpAddresses: boolean } };
}

/** An envelope's authorization and its project's stages, as they were when it arrived. */
export interface AuthorizedProject extends Authorized {
  readonly settings: ProjectStages;
}

/** The projects in force when a request arrived: a reload meanwhile does not change its envelope's settings. */
export interface Projects {
  authorize(header: Readonly<Record<string, unknown>>): AuthorizedProject;
  /** Some project allows callers on `origin`: the tunnel's preflight carries no DSN to choose a project by. */
  anyAllowsOrigin(origin: string): boolean;
}

/** The projects in force, swapped whole on a reload (projects/live.ts): a request reads them once, at its start. */
export interface LiveProjectSet {
  current(): Projects;
}

/** A request before its items are read: the header stages fill in its header and authorization. */
export interface Arrival {
  readonly projects: Projects;
  /** The caller's origin when it is another host's (routes/cors.ts), else undefined. */
  readonly origin: string | undefined;
  /** The page token the request carries, read only for a project that asks for one. */
  readonly pageToken: () => string | undefined;
  /** The envelope header (or, for CSP reports, the query's DSN as `{dsn}`). */
  header: Readonly<Record<string, unknown>>;
  /** Set by the authorize stage. */
  authorized: AuthorizedProject | undefined;
}

/** One item a stage dropped: its metrics label, its loss-ledger reason, and a quota's category. */
export interface DroppedItem {
  type: string;
  reason: string;
  ledger: DropReason;
  category?: string;
}

export interface Flight {
  readonly envelope: Envelope;
  readonly authorized: AuthorizedProject;
  /** The client's address (trusted hops resolved). */
  readonly client: string;
  readonly requestHeaders: IncomingHttpHeaders;
  readonly target: Target;
  /** One latin1 decode and one byte scan per item for the filter, inbound filter and scrub stages. */
  readonly texts: ItemTexts;
  items: EnvelopeItem[];
  /** Outcomes for the client report, in stage order. */
  discarded: Discarded[];
  dropped: DroppedItem[];
  /** Upstream's rate limits dropped something: their headers go back with the answer. */
  rateLimited: boolean;
  /** The quotas' Retry-After and X-Sentry-Rate-Limits (empty when none dropped anything). */
  quotaHeaders: Record<string, string>;
  /** A stage rewrote an item (scrub): the envelope is serialized again. */
  rewritten: boolean;
  /** The ledger's tally of the envelope's items as received. */
  readonly received: string;
  /** What is sent: the bytes and headers upstream gets, and the ledger's tally of its items. */
  body: Buffer;
  forwardHeaders: Record<string, string>;
  delivered: string | undefined;
}
