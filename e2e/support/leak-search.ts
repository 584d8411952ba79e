// Where planted secrets ended up in captured envelopes: every item's strings with their JSON paths (a replay
// recording's body decompressed and parsed first), searched for each secret as written and as URL-encoded, with a
// search of the decoded bytes behind it, so a secret outside any string (or in a body that is not JSON) is found too.
import { gunzipSync, inflateSync } from 'node:zlib';
import type { CapturedItem, ParsedEnvelope } from '@app/test-kit';

export interface Secret {
  name: string;
  value: string;
}

export interface Finding {
  secret: string;
  /** Who sent the envelope: the SDK's name without `sentry.javascript.` (browser, node). */
  side: string;
  /** The item's type, or `envelope header`. */
  type: string;
  /** Where in the item: a JSON path, `recording` + path for a replay's decompressed events, `(bytes)` otherwise. */
  path: string;
}

const isPlainKey = (key: string) => /^[A-Za-z_$][\w$]*$/.test(key);

/** Every string value under `value` with its path (`a.b[]["url.full"]`: array positions left out, one line each). */
export function stringsOf(value: unknown, path = ''): Array<[string, string]> {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v) => stringsOf(v, `${path}[]`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, v]) =>
      stringsOf(v, isPlainKey(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`),
    );
  }
  return [];
}

/** A replay recording is a JSON header line, then the rrweb events: zlib or gzip compressed by the SDK's worker. */
export function recordingText(payload: Buffer): string {
  const newline = payload.indexOf(0x0a);
  const body = newline === -1 ? payload : payload.subarray(newline + 1);
  for (const decompress of [inflateSync, gunzipSync]) {
    try {
      return decompress(body).toString('utf8');
    } catch {}
  }
  return body.toString('utf8');
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** An item's text as upstream reads it, and its strings by path. */
export function decodeItem(item: CapturedItem): { text: string; strings: Array<[string, string]> } {
  const header = stringsOf(item.header, 'header');
  if (item.type === 'replay_recording') {
    const text = recordingText(item.payload);
    const events = parsed(text);
    return { text, strings: [...header, ...(events === undefined ? [] : stringsOf(events, 'recording'))] };
  }
  const text = item.payload.toString('utf8');
  return { text, strings: [...header, ...(item.json === undefined ? [] : stringsOf(item.json))] };
}

/** The forms a secret takes in telemetry: as typed, in a URL or a form body. */
const variants = (value: string) =>
  [...new Set([value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)])].filter(
    (v) => v.length > 0,
  );

export const sideOf = (envelope: ParsedEnvelope): string =>
  String((envelope.header.sdk as { name?: string } | undefined)?.name ?? 'unknown').replace('sentry.javascript.', '');

/** Each place a secret appears in the envelopes, once per (sender, item type, path, secret), in that order. */
export function findSecrets(envelopes: readonly ParsedEnvelope[], secrets: readonly Secret[]): Finding[] {
  const findings: Finding[] = [];
  for (const envelope of envelopes) {
    const side = sideOf(envelope);
    const places: Array<{ type: string; text: string; strings: Array<[string, string]> }> = [
      { type: 'envelope header', text: JSON.stringify(envelope.header), strings: stringsOf(envelope.header) },
      ...envelope.items.map((item) => ({ type: item.type, ...decodeItem(item) })),
    ];
    for (const { type, text, strings } of places) {
      for (const secret of secrets) {
        const forms = variants(secret.value);
        const found = strings.filter(([, s]) => forms.some((form) => s.includes(form)));
        for (const [path] of found) findings.push({ secret: secret.name, side, type, path });
        if (found.length === 0 && forms.some((form) => text.includes(form))) {
          findings.push({ secret: secret.name, side, type, path: '(bytes)' });
        }
      }
    }
  }
  const byKey = new Map(findings.map((f) => [`${f.side} ${f.type} ${f.path} ${f.secret}`, f]));
  return [...byKey.keys()].sort().map((key) => byKey.get(key) as Finding);
}

/** A finding as a person reads it in a failure message. */
export const describeFinding = (f: Finding): string => `${f.secret} in ${f.side} ${f.type} at ${f.path}`;
