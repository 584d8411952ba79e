// A deliberately plain reader of Sentry envelopes for the capture server: it trusts its input (the relay under test
// is what validates) and exists so tests can assert on what arrived upstream item by item.

export interface CapturedItem {
  header: Record<string, unknown>;
  type: string;
  payload: Buffer;
  /** The payload parsed as JSON, when it is JSON. */
  json: unknown;
}

export interface ParsedEnvelope {
  header: Record<string, unknown>;
  items: CapturedItem[];
}

export function readEnvelope(body: Buffer): ParsedEnvelope {
  let offset = 0;
  const line = (): Buffer => {
    const end = body.indexOf(0x0a, offset);
    const slice = body.subarray(offset, end === -1 ? body.length : end);
    offset = end === -1 ? body.length : end + 1;
    return slice;
  };
  const header = JSON.parse(line().toString('utf8')) as Record<string, unknown>;
  const items: CapturedItem[] = [];
  while (offset < body.length) {
    const headerLine = line();
    if (headerLine.length === 0) continue;
    const itemHeader = JSON.parse(headerLine.toString('utf8')) as Record<string, unknown>;
    let payload: Buffer;
    if (typeof itemHeader.length === 'number') {
      payload = body.subarray(offset, offset + itemHeader.length);
      offset += itemHeader.length;
      if (body[offset] === 0x0a) offset++;
    } else {
      payload = line();
    }
    items.push({ header: itemHeader, type: String(itemHeader.type), payload, json: parseJson(payload) });
  }
  return { header, items };
}

function parseJson(payload: Buffer): unknown {
  try {
    return JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
}
