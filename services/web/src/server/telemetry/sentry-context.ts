// The Node SDK's Context integration puts the process's memory on every sampled transaction (segment span), read
// then and there: process.memoryUsage(), the cgroup's files and /proc/meminfo, ≈ 0.12 ms of CPU per transaction on
// an idle machine and more under load. Here it reads them at most once per interval and every transaction in between
// gets that reading; the other attributes are the integration's own, and its error events are left as they are.
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
