// Matching an error event against the ignore rules exactly as the Sentry SDK's ignoreErrors does.
import { type IgnoreRule, ignoreRules } from './rules.ts';

/**
 * The texts of an error event that ignore rules are tested against. The same choice as the Sentry SDK's
 * `ignoreErrors` (core `getPossibleEventMessages`), so that the browser and the relay drop the same events:
 *
 * - the event's message (`message` as the JS SDK sends it, or `message.formatted`/`message.message` and
 *   `logentry.formatted`/`logentry.message` as other SDKs and Relay write it);
 * - the **last** exception of `exception.values` (the error that was thrown; earlier entries are its causes):
 *   its `value` and `"<type>: <value>"`, and its bare `type` when it has no value (the SDK skips such an exception,
 *   Relay matches its type; a route signal thrown without a message is still a signal).
 *
 * Unlike Relay's inbound filter we do not look at the causes: an error whose cause is an ignored one is still an
 * error of its own, and the SDK would have kept it.
 */
export function candidateTexts(event: unknown): string[] {
  const texts: string[] = [];
  if (!isRecord(event)) return texts;
  const push = (value: unknown) => {
    if (typeof value === 'string' && value !== '') texts.push(value);
  };
  if (typeof event.message === 'string') push(event.message);
  else if (isRecord(event.message)) push(event.message.formatted ?? event.message.message);
  if (isRecord(event.logentry)) push(event.logentry.formatted ?? event.logentry.message);

  const values = isRecord(event.exception) ? event.exception.values : undefined;
  const last: unknown = Array.isArray(values) ? values[values.length - 1] : undefined;
  if (isRecord(last)) {
    const type = typeof last.type === 'string' ? last.type : '';
    const value = typeof last.value === 'string' ? last.value : '';
    if (value !== '') {
      texts.push(value);
      if (type !== '') texts.push(`${type}: ${value}`);
    } else if (type !== '') {
      texts.push(type);
    }
  }
  return texts;
}

/** The first rule whose pattern matches one of `texts`, or undefined. */
export function matchIgnoreRule(
  texts: Iterable<string>,
  rules: readonly IgnoreRule[] = ignoreRules,
): IgnoreRule | undefined {
  for (const text of texts) {
    for (const rule of rules) {
      if (rule.pattern.test(text)) return rule;
    }
  }
  return undefined;
}

/** The rule that ignores this (parsed) error event, or undefined when it should be kept. */
export function matchEvent(event: unknown, rules: readonly IgnoreRule[] = ignoreRules): IgnoreRule | undefined {
  return matchIgnoreRule(candidateTexts(event), rules);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
