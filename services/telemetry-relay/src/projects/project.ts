// One project's settings (the projects file's entry, or the environment's one implicit project) and what is compiled
// from them once per load: the stages the pipeline runs for that project's envelopes.
import type { IgnoreRule } from '@app/telemetry-rules';
import type { Dsn } from '../envelope/dsn.ts';
import type { EnvelopeItem } from '../envelope/types.ts';
import type { Authorized } from '../pipeline/authorize.ts';
import { createFilter } from '../pipeline/filter.ts';
import type { InboundFilterSettings } from '../pipeline/inbound-filters/settings.ts';
import { createInboundFilters } from '../pipeline/inbound-filters/stage.ts';
import { ScanPlan } from '../pipeline/item-scan.ts';
import type { ItemTexts } from '../pipeline/item-text.ts';
import type { QuotaSettings } from '../pipeline/quota/settings.ts';
import type { ScrubSettings } from '../pipeline/scrub.ts';
import { createScrubber, type ScrubLimits, type ScrubResult } from '../pipeline/scrub.ts';

/** A project's settings as configured (docs/decisions/050 maps each to Sentry Relay's project config). */
export interface ProjectSettings {
  /** The DSNs whose envelopes take these settings: the file's key, or every one of ALLOWED_DSNS. */
  dsns: readonly Dsn[];
  /**
   * Origins of pages on other hosts that may post (serialized, `https://app.example.com`); `[]`: same-origin callers
   * only; undefined: not checked (the environment without ALLOWED_ORIGINS, as before the projects file).
   */
  origins: readonly string[] | undefined;
  scrub: ScrubSettings;
  inboundFilters: InboundFilterSettings;
  ignoreRules: readonly IgnoreRule[];
  /** Local quotas, spike shield and page token (pipeline/quota/settings.ts), parsed and checked. */
  quotas: QuotaSettings;
}

/** A project's stages, compiled once per load; envelopes in flight keep the one they were authorized with. */
export interface Project {
  readonly settings: ProjectSettings;
  /** The project's quotas, spike shield and page token (the quota stage reads them per envelope). */
  readonly quotas: QuotaSettings;
  /** One byte scan per item for this project's three stages (item-scan.ts). */
  readonly plan: ScanPlan;
  readonly filter: ReturnType<typeof createFilter>;
  readonly inboundFilter: ReturnType<typeof createInboundFilters>;
  /** undefined when the settings scrub nothing. */
  readonly scrub: ((items: EnvelopeItem[], envelopeBytes: number, texts?: ItemTexts) => ScrubResult) | undefined;
  /** Origins of callers on other hosts that may post for this project; undefined: not checked (ProjectSettings). */
  readonly origins: ReadonlySet<string> | undefined;
}

/** An envelope's authorization and its project: what the stages after authorization read. */
export interface ProjectAuthorized extends Authorized {
  readonly settings: Project;
}

/**
 * The per-project lookup for other stages (quotas, the ledger): the project an authorized envelope belongs to, as it
 * was when the envelope arrived. A field read: the Map lookup happened once, at authorization.
 */
export function settingsFor(authorized: ProjectAuthorized): Project {
  return authorized.settings;
}

/** A project's stages: what depends on its scrub, filter and rule settings alone. */
type Stages = Pick<Project, 'plan' | 'filter' | 'inboundFilter' | 'scrub'>;

/**
 * Compiles a project; `shared` holds the stages of this load by their settings, so projects configured alike (most
 * of a company's) share one compilation (≈ 5 ms and a word table each) instead of one per DSN.
 */
export function compileProject(
  settings: ProjectSettings,
  limits: ScrubLimits,
  shared = new Map<string, Stages>(),
): Project {
  const key = JSON.stringify([settings.scrub, settings.inboundFilters, settings.ignoreRules.map((rule) => rule.id)]);
  let stages = shared.get(key);
  if (stages === undefined) {
    const plan = new ScanPlan();
    const filter = createFilter(settings.ignoreRules, plan);
    const inboundFilter = createInboundFilters(settings.inboundFilters, plan);
    const scrub = createScrubber(settings.scrub, limits, plan);
    plan.prepare();
    stages = { plan, filter, inboundFilter, scrub };
    shared.set(key, stages);
  }
  return {
    ...stages,
    settings,
    quotas: settings.quotas,
    origins: settings.origins === undefined ? undefined : new Set(settings.origins),
  };
}
