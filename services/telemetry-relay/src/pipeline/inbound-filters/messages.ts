// The two opt-in filters that take the project's own globs: relay-filter/src/error_messages.rs (the log message, or
// each exception as "Type: value", Type or value alone when the other is empty) and releases.rs (the release name).
import { exceptions, logMessage, release } from './event-fields.ts';
import { compileGlobs } from './glob.ts';
import type { InboundFilter } from './types.ts';

export function errorMessages(patterns: readonly string[]): InboundFilter {
  const globs = compileGlobs(patterns);
  return {
    id: 'error-message',
    kinds: ['event', 'transaction'],
    // "Type: value" joins two strings, so any exception or message makes the event a candidate.
    keys: ['type', 'value', 'formatted', 'message'],
    mayMatch: () => true,
    matches(event) {
      const message = logMessage(event);
      if (message !== undefined && globs.test(message)) return true;
      return exceptions(event).some(({ type = '', value = '' }) =>
        globs.test(type === '' ? value : value === '' ? type : `${type}: ${value}`),
      );
    },
  };
}

export function releases(patterns: readonly string[]): InboundFilter {
  const globs = compileGlobs(patterns);
  return {
    id: 'release-version',
    kinds: ['event', 'transaction'],
    keys: ['release'],
    mayMatch: (_key, value) => globs.test(value),
    matches(event) {
      const name = release(event);
      return name !== undefined && globs.test(name);
    },
  };
}
