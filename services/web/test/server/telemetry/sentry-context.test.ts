// The Node SDK's context integration, with its memory reading taken at most once per interval.
import * as Sentry from '@sentry/node';
import { describe, expect, it } from 'vitest';
import { withMemoryReadPerInterval } from '../../../src/server/telemetry/sentry-context.ts';

type Span = { attributes?: Record<string, unknown> };
const segment = (attributes: Record<string, unknown> = {}): Span => ({ attributes });
const client = {} as never;

describe("the Context integration's memory reading on sampled transactions", () => {
  it('gives every transaction the attributes of the real integration, memory included', () => {
    const context = withMemoryReadPerInterval(Sentry.nodeContextIntegration());
    const span = segment({ 'app.memory': 'set by the span itself' });
    context.processSegmentSpan?.(span as never, client);
    expect(span.attributes?.['app.memory']).toBe('set by the span itself');
    const other = segment();
    context.processSegmentSpan?.(other as never, client);
    expect(other.attributes?.['app.memory']).toEqual(expect.any(Number));
    expect(other.attributes?.['process.runtime.engine.name']).toBe('v8');
  });

  it('reads memory at most once per interval; the transactions in between get that reading', () => {
    let reads = 0;
    let clock = 0;
    const counting = {
      name: 'Context',
      processSegmentSpan(span: Span) {
        reads++;
        span.attributes = { ...span.attributes, 'app.memory': reads };
      },
    };
    const context = withMemoryReadPerInterval(counting as never, 1_000, () => clock);
    const memoryOf = () => {
      const span = segment();
      context.processSegmentSpan?.(span as never, client);
      return span.attributes?.['app.memory'];
    };
    expect([memoryOf(), memoryOf(), memoryOf()]).toEqual([1, 1, 1]);
    clock = 999;
    expect(memoryOf()).toBe(1);
    clock = 1_000;
    expect(memoryOf()).toBe(2);
    expect(reads).toBe(2);
  });

  it('leaves an integration without a transaction hook as it is', () => {
    const plain = { name: 'Plain' };
    expect(withMemoryReadPerInterval(plain)).toBe(plain);
  });
});
