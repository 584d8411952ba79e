// The HTML document: a head written by hand (title, CSP-nonced config and scripts, preloads, trace meta tags), then
// React Router's static router streamed with renderToPipeableStream into <div id="root">.
import { Transform } from 'node:stream';
import { renderToPipeableStream } from 'react-dom/server';
import {
  createStaticRouter,
  isRouteErrorResponse,
  type RouteObject,
  type StaticHandlerContext,
  StaticRouterProvider,
} from 'react-router';
import type { ClientConfig } from '../../framework/shared/client-config.ts';
import {
  DEFERRED_KEYS_ID,
  DEFERRED_QUEUE,
  type DeferredSettlement,
  keysOf,
} from '../../framework/shared/deferred-data.ts';
import { EARLY_ERRORS_SCRIPT } from '../../framework/shared/early-errors.ts';
import { errorScreenTitle } from '../../framework/shared/error-screens.tsx';
import { pageMetaOf } from '../../framework/shared/page-meta.ts';
import type { Assets } from './assets.ts';
import type { DeferredPart } from './deferred-parts.ts';

export interface DocumentParts {
  context: StaticHandlerContext;
  dataRoutes: RouteObject[];
  nonce: string;
  styleNonce: string;
  /** The relay's page token for this page (telemetry/page-tokens.ts), when one is issued. */
  pageToken?: string | undefined;
  assets: Assets;
  viewModules: string[];
  clientConfig: ClientConfig;
  /** Sentry's <meta name="sentry-trace"> and <meta name="baggage">, so the browser continues this trace. */
  traceMeta: string;
  appName: string;
  /** This site's origin for the canonical URL (http/canonical-origin.ts); undefined: the page has none. */
  origin: string | undefined;
  /** The loader data's deferred parts: each one's value is streamed in a script when it settles. */
  deferred?: DeferredPart[];
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON inside a <script> element: nothing can close the element or start a comment. */
const jsonForScript = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/** The client config's JSON without its closing brace, made once per config: only the style nonce is per document. */
const configJson = new WeakMap<ClientConfig, string>();
function clientConfigJson(config: ClientConfig, styleNonce: string, pageToken: string | undefined): string {
  let open = configJson.get(config);
  if (open === undefined) {
    const { styleNonce: _perDocument, pageToken: _renewed, ...shared } = config;
    open = jsonForScript(shared).slice(0, -1);
    configJson.set(config, open);
  }
  // The same text as jsonForScript({ ...config, styleNonce, pageToken }): nonce and token are hex and base64url with
  // digits and a dot, nothing in them is escaped.
  const token = pageToken === undefined ? '' : `,"pageToken":${JSON.stringify(pageToken)}`;
  return `${open}${open.length > 1 ? ',' : ''}"styleNonce":${JSON.stringify(styleNonce)}${token}}`;
}

function head(parts: DocumentParts): string {
  const { assets, nonce } = parts;
  const matches = parts.context.matches.map((m) => ({
    handle: m.route.handle,
    loaderData: parts.context.loaderData[m.route.id],
  }));
  const errors = Object.values(parts.context.errors ?? {});
  const meta = pageMetaOf(matches, {
    appName: parts.appName,
    origin: parts.origin,
    pathname: parts.context.location.pathname,
  });
  // A not-found anywhere names the page; otherwise the first failure's screen does.
  const shown = errors.find((e) => isRouteErrorResponse(e) && e.status === 404) ?? errors[0];
  const title = errors.length === 0 ? meta.title : errorScreenTitle(shown);
  const description = errors.length === 0 ? meta.description : undefined;
  // The app's modules at low priority: they run after parsing and hydrate after the first paint (start.tsx), so they
  // never block it; at High, Lighthouse's simulation counts every one that arrived before the paint as render-blocking
  // (docs/benchmarks.md, "Lighthouse").
  const preloads = assets
    .preloadFor(parts.viewModules)
    .map((href) => `<link rel="modulepreload" href="${href}" nonce="${nonce}" fetchpriority="low">`)
    .join('');
  const css =
    assets.inlineCss !== undefined
      ? `<style nonce="${parts.styleNonce}">${assets.inlineCss}</style>`
      : assets.css.map((href) => `<link rel="stylesheet" href="${href}">`).join('');
  return (
    `<!DOCTYPE html><html lang="${escapeHtml(meta.lang)}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">' +
    `<title>${escapeHtml(title)}</title>${metaTags(title, description, meta.canonical, parts.appName)}` +
    `${parts.traceMeta}${css}` +
    `<script type="application/json" id="client-config">${clientConfigJson(parts.clientConfig, parts.styleNonce, parts.pageToken)}</script>` +
    (parts.deferred?.length
      ? `<script type="application/json" id="${DEFERRED_KEYS_ID}">${jsonForScript(keysOf(parts.deferred))}</script>`
      : '') +
    // Before any module: errors until the Sentry SDK arrives (after hydration) are queued for it.
    (parts.clientConfig.sentry.dsn ? `<script nonce="${nonce}">${EARLY_ERRORS_SCRIPT}</script>` : '') +
    (assets.devHead?.(nonce) ?? '') +
    // Vite's preload helper puts this nonce on the modulepreload links it adds before an import() (script-src has
    // no 'self' to let them load otherwise).
    `<meta property="csp-nonce" nonce="${nonce}">` +
    `<script type="module" nonce="${nonce}" src="${assets.entry}" fetchpriority="low"></script>${preloads}` +
    '</head><body><div id="root">'
  );
}

/** Description, canonical URL and Open Graph basics (the same elements NavigationEffects updates in the browser). */
function metaTags(
  title: string,
  description: string | undefined,
  canonical: string | undefined,
  siteName: string,
): string {
  const property = (name: string, value: string) => `<meta property="${name}" content="${escapeHtml(value)}">`;
  return (
    (description ? `<meta name="description" content="${escapeHtml(description)}">` : '') +
    (canonical ? `<link rel="canonical" href="${escapeHtml(canonical)}">` : '') +
    property('og:type', 'website') +
    property('og:site_name', siteName) +
    property('og:title', title) +
    (description ? property('og:description', description) : '') +
    (canonical ? property('og:url', canonical) : '')
  );
}

const TAIL = '</div></body></html>';

/** A settled deferred part for the browser (client/navigation/deferred-receiver.ts takes it from the queue). */
const settlementScript = (settlement: DeferredSettlement, nonce: string) =>
  `<script nonce="${nonce}">(self.${DEFERRED_QUEUE}||=[]).push(${jsonForScript(settlement)})</script>`;

/**
 * What React pipes into: its many small writes of one flush are held and passed on as one chunk when React calls
 * flush() (it does after each batch), so the socket sees one write per batch instead of one per 2 KB piece.
 * Deferred data settled by then follows React's batch (never inside one); the tail is appended when React ends.
 */
function coalescingBody(tail: string, takeScripts: () => string[]): Transform & { flush(): void } {
  let held: Buffer[] = [];
  const release = (stream: Transform, end?: string) => {
    held.push(...takeScripts().map((script) => Buffer.from(script)));
    if (end !== undefined) held.push(Buffer.from(end));
    if (held.length === 0) return;
    stream.push(held.length === 1 ? held[0] : Buffer.concat(held));
    held = [];
  };
  const body = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      held.push(chunk);
      callback();
    },
    flush(callback) {
      release(this, tail);
      callback();
    },
  });
  return Object.assign(body, { flush: () => release(body) });
}

export interface RenderedDocument {
  status: number;
  /** The whole document when React had it all at the shell, else the stream of it. */
  body: NodeJS.ReadableStream | Buffer;
}

/**
 * What React pipes a render into that was complete at its shell: it then writes every chunk and ends within pipe(),
 * so the document is sent as one buffer with a Content-Length, without a stream between React and the socket.
 */
function collect(pipe: (destination: NodeJS.WritableStream) => unknown): Buffer[] {
  const chunks: Buffer[] = [];
  let ended = false;
  const sink = {
    // Views of React's own buffers (copied by the caller's concat at once) or, for a long text, a string.
    write(chunk: Uint8Array | string) {
      chunks.push(
        typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength),
      );
      return true;
    },
    end() {
      ended = true;
    },
    on() {
      return sink;
    },
    destroy() {},
  };
  pipe(sink as unknown as NodeJS.WritableStream);
  if (!ended) throw new Error('React did not finish a render it reported as all ready');
  return chunks;
}

/** A render still streaming after this is cut off (the shell is long sent; React finishes on the client). */
const RENDER_TIMEOUT_MS = 10_000;

/**
 * Resolves when the shell is ready (then the status can still be chosen), rejects on a shell error so the caller
 * can render the error boundary instead. Errors after the shell are reported through `onLateError`.
 */
export function renderDocument(
  parts: DocumentParts,
  onLateError: (error: unknown) => void,
  signal?: AbortSignal,
): Promise<RenderedDocument> {
  const router = createStaticRouter(parts.dataRoutes, parts.context);
  const documentHead = head(parts);
  const settledScripts: string[] = [];
  for (const part of parts.deferred ?? []) {
    void part.settled.then((settlement) => settledScripts.push(settlementScript(settlement, parts.nonce)));
  }
  // A page with deferred parts is always streamed: their scripts may settle after React is done with the markup.
  const mayBeWhole = !parts.deferred?.length;
  return new Promise((resolve, reject) => {
    let shellDone = false;
    let sent = false;
    const stream = renderToPipeableStream(
      <StaticRouterProvider router={router} context={parts.context} nonce={parts.nonce} />,
      {
        nonce: parts.nonce,
        onShellReady() {
          shellDone = true;
          // React calls onAllReady next, in the same pass, when nothing is suspended: wait for that pass to end.
          queueMicrotask(() => {
            if (sent) return;
            sent = true;
            const body = coalescingBody(TAIL, () => settledScripts.splice(0));
            body.write(Buffer.from(documentHead));
            stream.pipe(body);
            // Stop rendering for a client that went away, or after the time limit.
            const timer = setTimeout(() => stream.abort(new Error('render timed out')), RENDER_TIMEOUT_MS);
            body.on('close', () => clearTimeout(timer));
            signal?.addEventListener('abort', () => stream.abort(signal.reason), { once: true });
            resolve({ status: parts.context.statusCode, body });
          });
        },
        onAllReady() {
          if (sent || !shellDone || !mayBeWhole) return;
          sent = true;
          try {
            const markup = collect((destination) => stream.pipe(destination));
            resolve({
              status: parts.context.statusCode,
              body: Buffer.concat([Buffer.from(documentHead), ...markup, Buffer.from(TAIL)]),
            });
          } catch (error) {
            // Rendered again at the error boundary by the caller, and reported, rather than left unanswered.
            reject(error);
          }
        },
        onShellError(error) {
          reject(error);
        },
        onError(error) {
          if (shellDone) onLateError(error);
        },
      },
    );
  });
}
