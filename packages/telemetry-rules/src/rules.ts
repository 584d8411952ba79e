// Errors nobody acts on, dropped before they cost quota: by the SDKs (`ignoreErrors`) and again by the relay (which
// also sees older bundles and SDKs set up elsewhere). Tested against each candidate text of an event as the SDK does
// (match.ts); redirects and 404s are router responses, never errors (e2e/web/telemetry-noise.test.ts): no rule.

export interface IgnoreRule {
  /** Stable id, used in metrics and client reports' logs. */
  id: string;
  /** Why it is ignored. */
  reason: string;
  pattern: RegExp;
  /**
   * Plain substrings of which every text the pattern matches contains at least one (case-sensitive, no `"`, `\\`,
   * `/` or control characters). The relay's prefilter looks for them in the raw JSON bytes and parses only events
   * that contain one; a test checks each rule's examples against its literals.
   */
  literals: readonly string[];
}

export const ignoreRules: readonly IgnoreRule[] = [
  {
    id: 'cross-origin-script-error',
    reason: 'a script from another origin failed and the browser hides every detail',
    pattern: /^(?:Javascript error: )?Script error\.?(?: on line 0)?$/,
    literals: ['Script error'],
  },
  {
    id: 'resize-observer-loop-limit',
    reason: 'benign: a ResizeObserver callback resized an observed element (older browsers)',
    pattern: /^ResizeObserver loop limit exceeded$/,
    literals: ['ResizeObserver loop limit exceeded'],
  },
  {
    id: 'resize-observer-undelivered',
    reason: 'benign: a ResizeObserver callback resized an observed element',
    pattern: /^ResizeObserver loop completed with undelivered notifications\.?$/,
    literals: ['ResizeObserver loop completed'],
  },
];

/** For `Sentry.init({ ignoreErrors })` in the browser and on the server. */
export const ignoreErrors: RegExp[] = ignoreRules.map((rule) => rule.pattern);
