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

class PageFetchRequest extends Request {
  readonly #signal: AbortSignal;
  readonly #raw: IncomingHttpHeaders;
  #headers: Headers | undefined;

  constructor(url: URL, init: RequestInit, signal: AbortSignal, raw: IncomingHttpHeaders, headers?: Headers) {
    super(url, init);
    this.#signal = signal;
    this.#raw = raw;
    this.#headers = headers;
  }

  // Accessors on the prototype: the Request type declares `signal` and `headers` as fields, which a class may not
  // override with getters. undici's own methods (formData()) read its internal state, not these.
  static {
    Object.defineProperties(PageFetchRequest.prototype, {
      signal: {
        get(this: PageFetchRequest) {
          return this.#signal;
        },
      },
      headers: {
        get(this: PageFetchRequest) {
          this.#headers ??= toHeaders(this.#raw);
          return this.#headers;
        },
      },
      clone: {
        // undici's clone copies its internal state only: the copy gets this request's signal and headers too.
        value(this: PageFetchRequest) {
          const inner = Request.prototype.clone.call(this);
          const init = inner.body
            ? { method: inner.method, headers: inner.headers, body: inner.body, duplex: 'half' }
            : { method: inner.method };
          return new PageFetchRequest(new URL(inner.url), init as RequestInit, this.#signal, this.#raw, this.#headers);
        },
      },
    });
  }
}

/**
 * A request for `url`. A body's request gets its headers at once (undici reads the Content-Type from its own copy to
 * parse a form); a GET's or HEAD's are copied on first read.
 */
export function fetchRequest(url: URL, init: FetchRequestInit): Request {
  if (init.body) {
    const headers = toHeaders(init.headers);
    return new PageFetchRequest(
      url,
      { method: init.method, headers, body: init.body },
      init.signal,
      init.headers,
      headers,
    );
  }
  return new PageFetchRequest(url, { method: init.method }, init.signal, init.headers);
}
