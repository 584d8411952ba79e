// What Relay's filters read of an event (relay-filter `Filterable for Event`), from the parsed JSON. Anything of the
// wrong shape reads as absent, as Relay's typed schema would drop it.

type Json = Record<string, unknown>;

const object = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
const string = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export interface ExceptionFields {
  type: string | undefined;
  value: string | undefined;
  frames: unknown[];
}

/** `exception.values` (or a bare array, as the schema also accepts). */
export function exceptions(event: Json): ExceptionFields[] {
  const container = event.exception;
  const values = Array.isArray(container) ? container : object(container)?.values;
  if (!Array.isArray(values)) return [];
  return values.map((raw) => {
    const exception = object(raw) ?? {};
    const frames = object(exception.stacktrace)?.frames;
    return {
      type: string(exception.type),
      value: string(exception.value),
      frames: Array.isArray(frames) ? frames : [],
    };
  });
}

/**
 * A frame's `abs_path`: Relay's normalization moves `filename` there when `abs_path` is empty (the browser SDK sends
 * only `filename`), before the filters run.
 */
export function framePath(frame: unknown): string | undefined {
  const fields = object(frame);
  if (!fields) return undefined;
  return string(fields.abs_path) || string(fields.filename) || undefined;
}

/** A request header by name, case-insensitively; headers are an object or a list of [name, value] pairs. */
export function requestHeader(event: Json, name: string): string | undefined {
  const headers = object(event.request)?.headers;
  const wanted = name.toLowerCase();
  if (Array.isArray(headers)) {
    for (const pair of headers) {
      if (Array.isArray(pair) && string(pair[0])?.toLowerCase() === wanted) return string(pair[1]);
    }
    return undefined;
  }
  const fields = object(headers);
  if (!fields) return undefined;
  for (const key of Object.keys(fields)) if (key.toLowerCase() === wanted) return string(fields[key]);
  return undefined;
}

export const userAgent = (event: Json) => requestHeader(event, 'User-Agent');
export const requestUrl = (event: Json) => string(object(event.request)?.url);
export const userIp = (event: Json) => string(object(event.user)?.ip_address);
export const eventType = (event: Json) => string(event.type) ?? 'default';
export const transactionName = (event: Json) => string(event.transaction);
export const release = (event: Json) => string(event.release);

/** `logentry.formatted`, else `logentry.message`, else a string `message` (the legacy form). */
export function logMessage(event: Json): string | undefined {
  const logentry = object(event.logentry);
  return string(logentry?.formatted) ?? string(logentry?.message) ?? string(event.message);
}

export { object as asObject };
