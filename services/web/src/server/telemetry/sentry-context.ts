// The Node SDK's Context integration reads the process's memory (memoryUsage, the cgroup's files, /proc/meminfo) for
// every sampled transaction; here at most once per interval, transactions in between sharing the reading (its cost:
// docs/archive/benchmarks-journal.md, issue 12). Its other attributes and its error events are left as they are.
import type { Integration } from '@sentry/core';

type SegmentSpan = Parameters<NonNullable<Integration['processSegmentSpan']>>[0];

export const MEMORY_READ_INTERVAL_MS = 1_000;

export function withMemoryReadPerInterval(
  integration: Integration,
  intervalMs = MEMORY_READ_INTERVAL_MS,
  now = () => performance.now(),
): Integration {
  const processSegmentSpan = integration.processSegmentSpan?.bind(integration);
  if (!processSegmentSpan) return integration;
  let readAt = Number.NEGATIVE_INFINITY;
  let attributes: NonNullable<SegmentSpan['attributes']> = {};
  return {
    ...integration,
    processSegmentSpan(span, client) {
      if (now() - readAt >= intervalMs) {
        const probe = { attributes: {} } as SegmentSpan;
        processSegmentSpan(probe, client);
        attributes = probe.attributes ?? {};
        readAt = now();
      }
      // As the SDK sets them: never over an attribute the span already has.
      const own = span.attributes ?? {};
      span.attributes = own;
      for (const [key, value] of Object.entries(attributes)) {
        if (value != null && !(key in own)) own[key] = value;
      }
    },
  };
}
