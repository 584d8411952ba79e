// Security headers through helmet: a CSP with a fresh nonce per request for scripts and for styles (the feedback
// widget puts nonced <style> elements in its shadow root), same-origin connections only (telemetry goes through the
// same-origin tunnel; in direct mode also the DSN's origin, nothing else), violations reported to Sentry's security
// endpoint (report-uri: with report-to as well, Chromium ignores report-uri, and its Reporting API delivered nothing
// in the browser suites — docs in the README's Sentry section), no framing, a strict referrer policy, HSTS in production.
//
// helmet itself, built once, rather than @fastify/helmet: with nonces (and in fact always) that plugin builds a new
// helmet middleware per request, re-parsing every CSP directive — ≈ 5 % of the CPU of a page-data request. Here the
// nonces reach the one middleware through directive functions, helmet's own way of doing per-request values.
// Page data (JSON) runs nothing: its CSP allows nothing (the usual policy for API responses) and needs no nonces, so
// its headers are computed once.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import { asksForPageData } from '../../framework/page-data-protocol.ts';

export interface CspNonces {
  script: string;
  style: string;
}

declare module 'fastify' {
  interface FastifyReply {
    /** This response's CSP nonces (hex), for the <script> tags and the feedback widget's styles. */
    cspNonce: CspNonces;
  }
}

const noncesOf = new WeakMap<ServerResponse, CspNonces>();

// Random bytes drawn in blocks, as Node's randomUUID does: one randomBytes call per request (32 bytes) cost ≈ 1 % of
// a document's CPU, most of it the call itself. Each pair of nonces still takes bytes nobody else was given.
const NONCE_BYTES = 32;
const NONCES_PER_BLOCK = 128;
let block = Buffer.alloc(0);
let offset = 0;
export function freshNonces(): CspNonces {
  if (offset === block.length) {
    block = randomBytes(NONCE_BYTES * NONCES_PER_BLOCK);
    offset = 0;
  }
  const hex = block.toString('hex', offset, offset + NONCE_BYTES);
  offset += NONCE_BYTES;
  return { script: hex.slice(0, 32), style: hex.slice(32) };
}
const nonce = (kind: keyof CspNonces) => (_req: IncomingMessage, res: ServerResponse) =>
  `'nonce-${noncesOf.get(res)?.[kind]}'`;

export interface SecurityOptions {
  dev: boolean;
  /** Origins the page may connect to besides its own (direct mode: the DSN's). */
  connectOrigins?: readonly string[];
  /** Where violation reports go (securityReportUrl); undefined = not reported. */
  reportUrl?: string | undefined;
}

/** Sets the security headers on a response and returns the nonces its CSP allows; throws what helmet fails with. */
export type SecurityHeaders = (req: IncomingMessage, res: ServerResponse) => CspNonces;

/** What a page-data answer gets: its policy allows no script or style at all. */
const NO_NONCES: CspNonces = Object.freeze({ script: '', style: '' });
const DATA_DIRECTIVES = { defaultSrc: ["'none'"], frameAncestors: ["'none'"] };

export function securityHeaders(options: SecurityOptions): SecurityHeaders {
  const applyHeaders = helmet(helmetOptions(options, pageDirectives(options)));
  const dataHeaders = headersSetBy(helmet(helmetOptions(options, DATA_DIRECTIVES)));
  return (req, res) => {
    if (asksForPageData(req.headers)) {
      for (const [name, value] of dataHeaders) res.setHeader(name, value);
      return NO_NONCES;
    }
    const nonces = freshNonces();
    noncesOf.set(res, nonces);
    // helmet's middleware is synchronous: it has called back when it returns.
    let failure: unknown;
    applyHeaders(req, res, (error) => {
      failure = error;
    });
    if (failure) throw failure;
    return nonces;
  };
}

/** Registered on the root instance (not encapsulated): every response gets the headers, every reply its nonces. */
export function registerSecurityHeaders(app: FastifyInstance, apply: SecurityHeaders): void {
  app.decorateReply('cspNonce', null as unknown as CspNonces);
  app.addHook('onRequest', function applySecurityHeaders(req, reply, done) {
    try {
      reply.cspNonce = apply(req.raw, reply.raw);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
}

/** The headers a helmet middleware with no per-request values sets, read once from a recording response. */
function headersSetBy(middleware: ReturnType<typeof helmet>): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  const recorder = { setHeader: (name: string, value: string) => headers.push([name, value]), removeHeader() {} };
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (error) => {
    if (error) throw error;
  });
  return headers;
}

type Directives = NonNullable<NonNullable<Exclude<HelmetOptions['contentSecurityPolicy'], boolean>>['directives']>;

function helmetOptions(options: SecurityOptions, directives: Directives): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    strictTransportSecurity: options.dev ? false : { maxAge: 63_072_000, includeSubDomains: true },
    crossOriginEmbedderPolicy: false,
    frameguard: { action: 'deny' },
  };
}

function pageDirectives(options: SecurityOptions): Directives {
  const connectOrigins = options.connectOrigins ?? [];
  return {
    defaultSrc: ["'self'"],
    // The nonce only: no 'self' a stray same-origin script URL could use. Module imports, static and import(), inherit
    // their root's nonce. Not 'strict-dynamic': without Trusted Types (which Sentry's feedback widget breaks) it would
    // let any script-created <script>, inline too, run (docs/web.md, "Hardening, second round").
    scriptSrc: [nonce('script')],
    // Vite's dev server injects CSS with inline <style> elements (HMR); a build links files. A nonce in the
    // list would make browsers ignore 'unsafe-inline', so dev has none for styles.
    styleSrc: options.dev ? ["'self'", "'unsafe-inline'"] : ["'self'", nonce('style')],
    // The dev server's HMR client talks over a websocket.
    connectSrc: ["'self'", ...connectOrigins, ...(options.dev ? ['ws:'] : [])],
    imgSrc: ["'self'", 'data:', 'blob:'],
    fontSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    ...(options.reportUrl ? { reportUri: [options.reportUrl] } : {}),
  };
}
