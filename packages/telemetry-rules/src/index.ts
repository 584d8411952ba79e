export { candidateTexts, matchEvent, matchIgnoreRule } from './match.ts';
export { type IgnoreRule, ignoreErrors, ignoreRules } from './rules.ts';
