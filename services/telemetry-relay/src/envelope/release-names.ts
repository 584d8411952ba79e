// Release and environment names as Sentry documents them (docs "Releases: naming", "Environments") and Relay
// validates them: checked before the relay copies them into an item header, so a query string cannot make every
// item of a batch carry kilobytes of escapes (issue 24).

/** Sentry: "The release name cannot exceed 200 characters." */
export const MAX_RELEASE_CHARS = 200;
/** Sentry: environment names "can't exceed 64 characters". */
export const MAX_ENVIRONMENT_CHARS = 64;

/** Control characters (C0, DEL, C1): Sentry refuses newlines and tabs; none has a place in a name. */
const CONTROL = /\p{Cc}/u;
/** Names Sentry refuses as a whole release name. */
const RESERVED_RELEASES: ReadonlySet<string> = new Set(['.', '..', ' ', 'latest']);

/** What is wrong with a release name, or undefined. */
export function releaseProblem(name: string): string | undefined {
  if (name.length > MAX_RELEASE_CHARS) {
    return `is ${name.length} characters long; Sentry takes at most ${MAX_RELEASE_CHARS}`;
  }
  if (CONTROL.test(name)) return 'contains a control character (newline, tab, …), which Sentry refuses';
  if (name.includes('/') || name.includes('\\')) return 'contains "/" or "\\", which Sentry refuses in a release';
  if (name.trim() === '' || RESERVED_RELEASES.has(name)) return `is ${JSON.stringify(name)}, a name Sentry reserves`;
  return undefined;
}

/** What is wrong with an environment name, or undefined. */
export function environmentProblem(name: string): string | undefined {
  if (name.length > MAX_ENVIRONMENT_CHARS) {
    return `is ${name.length} characters long; Sentry takes at most ${MAX_ENVIRONMENT_CHARS}`;
  }
  if (CONTROL.test(name)) return 'contains a control character (newline, tab, …), which Sentry refuses';
  if (name.includes('/') || name.includes(' ')) {
    return 'contains "/" or a space, which Sentry refuses in an environment';
  }
  if (name === 'None') return 'is "None", which Sentry refuses as an environment';
  return undefined;
}
