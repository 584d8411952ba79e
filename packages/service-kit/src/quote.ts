// Client text as an answer or a log line may quote it (decision 010): JSON-escaped, so no control character or newline
// reaches a log, and cut to a bound that says how much was left out.

/** `text` JSON-quoted, at most `max` characters of it, with its length when it was cut. */
export function quoteBounded(text: string, max: number): string {
  return text.length <= max
    ? JSON.stringify(text)
    : `${JSON.stringify(text.slice(0, max))}… (${text.length} characters)`;
}
