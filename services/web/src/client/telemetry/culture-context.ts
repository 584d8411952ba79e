// The `culture` context (locale, time zone, calendar) of Sentry's cultureContextIntegration, on every event but
// transactions, read at the first such event and kept. The first Intl.DateTimeFormat() of a page loads the time zone
// data (≈ 20 ms of CPU, ×4 on a phone): Sentry's reads it for every event, so each page load paid it for its pageload
// transaction; here only a page that reports an error or feedback does (docs/benchmarks.md, issue 16).
import { defineIntegration, type Event } from '@sentry/core';

interface Culture {
  locale: string;
  timezone: string;
  calendar: string;
}

let culture: Culture | null | undefined;

function readCulture(): Culture | null {
  try {
    const options = Intl.DateTimeFormat().resolvedOptions();
    return { locale: options.locale, timezone: options.timeZone, calendar: options.calendar };
  } catch {
    return null;
  }
}

export const cultureContextIntegration = defineIntegration(() => ({
  name: 'CultureContext',
  preprocessEvent(event: Event) {
    if (event.type === 'transaction') return;
    culture ??= readCulture();
    // As Sentry's: what the event already says about its culture wins.
    if (culture) event.contexts = { ...event.contexts, culture: { ...culture, ...event.contexts?.culture } };
  },
}));
