// Trace continuation within a budget: an incoming sampled `sentry-trace` (or baggage sample_rand below the rate) would
// let any client make every request pay for a span upstream, so such decisions are honoured only as many per second as
// the bucket holds, then decided here (decisions 004, 015). Loaded by instrument.ts, read by ops/metrics.ts.

// The subpaths, not the index: instrument.ts loads this before the SDK, and the index would load Fastify with it.
import { requestClientAddress } from '@app/service-kit/client-address';
import { DEFAULT_PREFIXES, networkOf } from '@app/service-kit/client-network';

/** What became of incoming sampled decisions since the process started (web_trace_continuations_total). */
export const traceContinuations = { continued: 0, over_budget: 0 };
export type TraceContinuationOutcome = keyof typeof traceContinuations;

export interface TokenBucket {
  /** Takes a token if one is left; refills at `perSecond`, holding at most `burst`. */
  take(): boolean;
}

export function createTokenBucket(perSecond: number, burst = perSecond, now = () => performance.now()): TokenBucket {
  let tokens = burst;
  let last = now();
  return {
    take() {
      const at = now();
      tokens = Math.min(burst, tokens + ((at - last) / 1000) * perSecond);
      last = at;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}

/** The part of Sentry's propagation context the decision reads. */
export interface IncomingTrace {
  /** Set when the request continues a trace started elsewhere (sentry-trace header). */
  parentSpanId?: string | undefined;
  sampled?: boolean | undefined;
  sampleRand: number;
}

/**
 * Whether the incoming trace would make this request sampled by the client's say-so: a `-1` flag, or no flag and a
 * sample_rand (the client's too) under the rate. Such a decision costs a token; a `-0` or a local decision does not.
 */
export function isForcedSample(trace: IncomingTrace, rate: number): boolean {
  if (trace.parentSpanId === undefined) return false;
  return trace.sampled === true || (trace.sampled === undefined && trace.sampleRand < rate);
}

/** Honours a forced sample while the budget lasts; counts the outcome. */
export function admitForcedSample(bucket: TokenBucket): boolean {
  const outcome: TraceContinuationOutcome = bucket.take() ? 'continued' : 'over_budget';
  traceContinuations[outcome]++;
  return outcome === 'continued';
}

/** The part of a request the budget reads (an IncomingMessage has it). */
export interface BudgetedRequest {
  headers: { 'x-forwarded-for'?: string | string[] | undefined; 'sec-fetch-site'?: string | string[] | undefined };
  socket?: { remoteAddress?: string | undefined } | undefined;
}

export interface TraceBudgetOptions {
  /** TRACE_CONTINUATION_PER_SECOND: each share's rate (and burst). */
  perSecond: number;
  /** TRUSTED_PROXY_HOPS, to find the client behind the edge. */
  trustedProxyHops: number;
  now?: () => number;
}

/** Clients whose same-origin buckets are remembered; past it the oldest is forgotten (and starts full again). */
const MAX_CLIENTS = 4096;

/**
 * Two shares of the budget, so that clients forcing `-1` cannot break the browser's own traces: the page's requests
 * (Sec-Fetch-Site: same-origin, sent by browsers only) draw from one, everything else from the other. A client that
 * forges the header still gets at most a quarter of the page share a second, per client network (service-kit's
 * clientNetwork: an IPv6 /64, an IPv4 address).
 */
export function createTraceBudget(options: TraceBudgetOptions): (req: BudgetedRequest) => boolean {
  const { perSecond, trustedProxyHops, now } = options;
  const pageShare = createTokenBucket(perSecond, perSecond, now);
  const otherShare = createTokenBucket(perSecond, perSecond, now);
  const perClient = Math.max(1, perSecond / 4);
  const clients = new Map<string, TokenBucket>();
  const networkOfClient = networkOf(DEFAULT_PREFIXES);
  const clientBucket = (prefix: string) => {
    let bucket = clients.get(prefix);
    if (bucket) return bucket;
    if (clients.size >= MAX_CLIENTS) clients.delete(clients.keys().next().value as string);
    bucket = createTokenBucket(perClient, perClient, now);
    clients.set(prefix, bucket);
    return bucket;
  };
  return (req) => {
    if (req.headers['sec-fetch-site'] !== 'same-origin') return admitForcedSample(otherShare);
    const address = requestClientAddress(req, trustedProxyHops);
    const client = clientBucket(networkOfClient(address));
    return admitForcedSample({ take: () => client.take() && pageShare.take() });
  };
}
