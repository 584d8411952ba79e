// What the quota stage dropped, per project and data category, by reason (pipeline/quota/reasons.ts): the loss
// ledger's and the dashboard's quota and spike-shield panels.
import { Counter, type Registry } from 'prom-client';

const NAME = 'relay_quota_dropped_total';

/** The counter in `registry`, made once: the tunnel and CSP reports both ask for it. */
export function quotaDropCounter(registry: Registry): Counter<'project' | 'category' | 'reason'> {
  const existing = registry.getSingleMetric(NAME);
  if (existing) return existing as Counter<'project' | 'category' | 'reason'>;
  return new Counter({
    name: NAME,
    help: 'Items dropped by a local quota (reason quota) or the spike shield (reason spike_shield), by project id and data category',
    labelNames: ['project', 'category', 'reason'],
    registers: [registry],
  });
}
