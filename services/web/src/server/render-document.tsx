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
import type { ClientConfig } from '../framework/client-config.ts';
import { ERROR_TITLE, NOT_FOUND_TITLE } from '../framework/error-screens.tsx';
import { pageMetaOf } from '../framework/page-meta.ts';
import type { Assets } from './assets.ts';

export interface DocumentParts {
  context: StaticHandlerContext;
  dataRoutes: RouteObject[];
  nonce: string;
  styleNonce: string;
  assets: Assets;
  viewModules: string[];
  clientConfig: ClientConfig;
  /** Sentry's <meta name="sentry-trace"> and <meta name="baggage">, so the browser continues this trace. */
  traceMeta: string;
  appName: string;
  /** This site's origin as the request named it, for the canonical URL. */
  origin: string;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON inside a <script> element: nothing can close the element or start a comment. */
export const jsonForScript = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

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
  const title =
    errors.length === 0
      ? meta.title
      : errors.some((e) => isRouteErrorResponse(e) && e.status === 404)
        ? NOT_FOUND_TITLE
        : ERROR_TITLE;
  const description = errors.length === 0 ? meta.description : undefined;
  const preloads = assets
    .preloadFor(parts.viewModules)
    .map((href) => `<link rel="modulepreload" href="${href}">`)
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
    `<script type="application/json" id="client-config">${jsonForScript({ ...parts.clientConfig, styleNonce: parts.styleNonce })}</script>` +
    (assets.devHead?.(nonce) ?? '') +
    `<script type="module" nonce="${nonce}" src="${assets.entry}"></script>${preloads}` +
    '</head><body><div id="root">'
  );
}

/** Description, canonical URL and Open Graph basics (the same elements NavigationEffects updates in the browser). */
function metaTags(title: string, description: string | undefined, canonical: string, siteName: string): string {
  const property = (name: string, value: string) => `<meta property="${name}" content="${escapeHtml(value)}">`;
  return (
    (description ? `<meta name="description" content="${escapeHtml(description)}">` : '') +
    `<link rel="canonical" href="${escapeHtml(canonical)}">` +
    property('og:type', 'website') +
    property('og:site_name', siteName) +
    property('og:title', title) +
    (description ? property('og:description', description) : '') +
    property('og:url', canonical)
  );
}

const TAIL = '</div></body></html>';

/**
 * What React pipes into: its many small writes of one flush are held and passed on as one chunk when React calls
 * flush() (it does after each batch), so the socket sees one write per batch instead of one per 2 KB piece.
 * The document's tail is appended when React ends the stream.
 */
function coalescingBody(tail: string): Transform & { flush(): void } {
  let held: Buffer[] = [];
  const release = (stream: Transform) => {
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
      held.push(Buffer.from(tail));
      release(this);
      callback();
    },
  });
  return Object.assign(body, { flush: () => release(body) });
}

export interface RenderedDocument {
  status: number;
  body: NodeJS.ReadableStream;
}

/**
 * Resolves when the shell is ready (then the status can still be chosen), rejects on a shell error so the caller
 * can render the error boundary instead. Errors after the shell are reported through `onLateError`.
 */
/** A render still streaming after this is cut off (the shell is long sent; React finishes on the client). */
export const RENDER_TIMEOUT_MS = 10_000;

export function renderDocument(
  parts: DocumentParts,
  onLateError: (error: unknown) => void,
  signal?: AbortSignal,
): Promise<RenderedDocument> {
  const router = createStaticRouter(parts.dataRoutes, parts.context);
  const documentHead = head(parts);
  return new Promise((resolve, reject) => {
    let shellDone = false;
    const stream = renderToPipeableStream(
      <StaticRouterProvider router={router} context={parts.context} nonce={parts.nonce} />,
      {
        nonce: parts.nonce,
        onShellReady() {
          shellDone = true;
          const body = coalescingBody(TAIL);
          body.write(Buffer.from(documentHead));
          stream.pipe(body);
          // Stop rendering for a client that went away, or after the time limit.
          const timer = setTimeout(() => stream.abort(new Error('render timed out')), RENDER_TIMEOUT_MS);
          body.on('close', () => clearTimeout(timer));
          signal?.addEventListener('abort', () => stream.abort(signal.reason), { once: true });
          resolve({ status: parts.context.statusCode, body });
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
