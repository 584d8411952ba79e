// The quota stage: the page token (checked with the header line, before the body is read), then on the items the
// spike shield (so a spike does not spend the quota) and the local quotas, with the settings of the envelope's project
// as they were when it arrived (projects/project.ts).
import { PAGE_TOKEN_HEADER, type PageTokenProblem, verifyPageToken } from '@app/service-kit/page-token';
import { type RejectCode, RelayError } from '../../core/errors.ts';
import type { Discarded } from '../../core/types.ts';
import type { EnvelopeItem } from '../../envelope/types.ts';
import { parsedPayload } from '../parsed-event.ts';
import { errorFingerprint } from './fingerprint.ts';
import { type ActiveLimit, QuotaCounters, quotaHeaders } from './quota.ts';
import { QUOTA_DROP_REASONS, type QuotaDropReason } from './reasons.ts';
import type { QuotaSettings } from './settings.ts';
import { SpikeShield } from './spike-shield.ts';

export interface QuotaStageOptions {
  /** The client's network key for network-scoped quotas (pipeline/client-network.ts). */
  clientNetwork: (address: string) => string;
  now?: () => number;
  maxCounters?: number;
  maxFingerprints?: number;
}

export interface QuotaResult {
  items: EnvelopeItem[];
  discarded: Discarded[];
  dropped: Array<{ type: string; category: string; reason: QuotaDropReason }>;
  /** Retry-After and X-Sentry-Rate-Limits for the quotas that dropped something (empty when none did). */
  headers: Record<string, string>;
}

const TOKEN_CODES: Record<PageTokenProblem, RejectCode> = {
  missing: 'page_token_missing',
  expired: 'page_token_expired',
  malformed: 'page_token_invalid',
  bad: 'page_token_invalid',
};

export interface QuotaStage {
  /** Throws a 403 RelayError when the project requires a page token and `token()` is not a valid one. */
  checkPageToken(settings: QuotaSettings, publicKey: string, token: () => string | undefined): void;
  apply(
    settings: QuotaSettings,
    publicKey: string,
    project: string,
    address: string,
    items: EnvelopeItem[],
  ): QuotaResult;
}

export function createQuotaStage(options: QuotaStageOptions): QuotaStage {
  const { clientNetwork } = options;
  const now = options.now ?? Date.now;
  const counters = new QuotaCounters(options.maxCounters);
  const shield = new SpikeShield(options.maxFingerprints);
  return {
    checkPageToken({ pageToken }, publicKey, token) {
      if (pageToken === undefined) return;
      const check = verifyPageToken(token(), pageToken.secret, publicKey, Math.floor(now() / 1000), pageToken);
      if (!check.ok) throw new RelayError(TOKEN_CODES[check.problem], check.detail);
    },
    apply(settings, publicKey, project, address, items) {
      if (settings.quotas.length === 0 && settings.spikeShield === undefined) {
        return { items, discarded: [], dropped: [], headers: {} };
      }
      const at = now();
      const dropped: QuotaResult['dropped'] = [];
      const discarded: Discarded[] = [];
      let kept = items;
      const shieldSettings = settings.spikeShield;
      if (shieldSettings !== undefined) {
        kept = items.filter((item) => {
          if (item.type !== 'event') return true;
          const fingerprint = errorFingerprint(parsedPayload(item));
          if (fingerprint === undefined || shield.admit(project, fingerprint, shieldSettings, at)) return true;
          dropped.push({ type: 'event', category: 'error', reason: QUOTA_DROP_REASONS.spikeShield });
          return false;
        });
        if (dropped.length > 0) {
          discarded.push({ reason: QUOTA_DROP_REASONS.spikeShield, category: 'error', quantity: dropped.length });
          // The event's attachments go with it, as with a quota.
          const attachments = kept.filter((item) => item.type === 'attachment');
          if (attachments.length > 0) {
            kept = kept.filter((item) => item.type !== 'attachment');
            for (const _ of attachments)
              dropped.push({ type: 'attachment', category: 'attachment', reason: QUOTA_DROP_REASONS.spikeShield });
            const bytes = attachments.reduce((sum, item) => sum + item.payload.length, 0);
            discarded.push({ reason: QUOTA_DROP_REASONS.spikeShield, category: 'attachment', quantity: bytes });
            discarded.push({
              reason: QUOTA_DROP_REASONS.spikeShield,
              category: 'attachment_item',
              quantity: attachments.length,
            });
          }
        }
      }
      let limits: ActiveLimit[] = [];
      if (settings.quotas.length > 0) {
        const network = settings.quotas.some((q) => q.scope === 'network') ? clientNetwork(address) : '';
        const decision = counters.apply(
          settings.quotas,
          { project: publicKey, network: `${publicKey}\u0000${network}` },
          kept,
          at,
        );
        kept = decision.items;
        limits = decision.limits;
        discarded.push(...decision.discarded);
        for (const d of decision.dropped) dropped.push({ ...d, reason: QUOTA_DROP_REASONS.quota });
      }
      return { items: kept, discarded, dropped, headers: quotaHeaders(limits) };
    },
  };
}

/** Where a beacon (navigator.sendBeacon sends no headers) puts the token: the tunnel URL's query. */
export const PAGE_TOKEN_QUERY = 'page_token';

/** The token a request carries: X-Page-Token, else `page_token` in its query. */
export function pageTokenOf(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  url = '',
): string | undefined {
  const header = headers[PAGE_TOKEN_HEADER];
  if (header !== undefined) return Array.isArray(header) ? undefined : header;
  const query = url.indexOf('?');
  return query === -1 ? undefined : (new URLSearchParams(url.slice(query + 1)).get(PAGE_TOKEN_QUERY) ?? undefined);
}
