export { candidateTexts, matchEvent, matchIgnoreRule } from './match.ts';
export { type IgnoreRule, ignoreErrors, ignoreRules, ROUTE_SIGNAL_NAMES } from './rules.ts';
