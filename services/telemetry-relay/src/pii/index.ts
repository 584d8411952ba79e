// Data scrubbing as Sentry Relay does it with a project's data-scrubbing settings; pure, no I/O.
export { scrubEvent } from './event.ts';
export { type CompiledScrub, compileScrub, DEFAULT_SCRUB_SETTINGS, type ScrubSettings } from './settings.ts';
export { type FieldKind, type Hit, newMeta, walkChildren } from './walk.ts';
