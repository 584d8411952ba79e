// The ignore rules and their matcher, shared by the web's browser and server SDKs and the relay.
export { candidateTexts, matchEvent, matchIgnoreRule } from './match.ts';
export { type IgnoreRule, ignoreErrors, ignoreRules } from './rules.ts';
