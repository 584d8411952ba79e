// The Fetch Request a page's loaders and action run over, built for less per request than undici's own: its signal
// is the page's AbortSignal as such (undici would follow it with a listener, a WeakRef and a finalizer), and a GET's
// headers are copied into a Headers object only when something reads them (decision 037 measures both).
import type { IncomingHttpHeaders } from 'node:http';

export interface FetchRequestInit {
  method: string;
  headers: IncomingHttpHeaders;
  /** Aborted when the client goes away: what loaders, the router and the render see as `request.signal`. */
  signal: AbortSignal;
  body?: Uint8Array<ArrayBuffer>;
}

/** Node's parsed headers as Fetch Headers (a repeated header as its values in order). */
export function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const name in raw) {
    const value = raw[name];
    if (value === undefined) continue;
    if (typeof value === 'string') headers.append(name, value);
    else for (const v of value) headers.append(name, v);
  }
  return headers;
}

const state = new WeakMap<Request, { signal: AbortSignal; raw: IncomingHttpHeaders; headers?: Headers }>();

class PageFetchRequest extends Request {}
// Accessors on the prototype: the Request type declares `signal` and `headers` as fields, which a class may not
// override with getters. undici's own methods (formData(), clone()) read its internal state, not these.
Object.defineProperties(PageFetchRequest.prototype, {
  signal: {
    get(this: Request) {
      return state.get(this)?.signal;
    },
  },
  headers: {
    get(this: Request) {
      const own = state.get(this);
      if (!own) return undefined;
      own.headers ??= toHeaders(own.raw);
      return own.headers;
    },
  },
});

/**
 * A request for `url`. A body's request gets its headers at once (undici reads the Content-Type from its own copy to
 * parse a form); a GET's or HEAD's are copied on first read.
 */
export function fetchRequest(url: URL, init: FetchRequestInit): Request {
  if (init.body) {
    const headers = toHeaders(init.headers);
    const request = new PageFetchRequest(url, { method: init.method, headers, body: init.body });
    state.set(request, { signal: init.signal, raw: init.headers, headers });
    return request;
  }
  const request = new PageFetchRequest(url, { method: init.method });
  state.set(request, { signal: init.signal, raw: init.headers });
  return request;
}
