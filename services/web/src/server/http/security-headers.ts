// Security headers through helmet: a CSP with a fresh nonce per request for scripts and styles, same-origin connects,
// violations by report-uri (docs/web.md, "Sentry: where each report goes"), no framing, HSTS. helmet runs once with
// slots for the nonces, not per request as @fastify/helmet would (decision 032); page data's headers are made once.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import { asksForPageData } from '../../framework/shared/page-data-protocol.ts';

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

// Random bytes drawn in blocks, as Node's randomUUID does: a randomBytes call per request costs mostly the call
// itself. Each pair of nonces still takes bytes nobody else was given.
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
// helmet builds the policy with these in the nonces' places, once; each response gets it with its own nonces put in.
const SLOTS: CspNonces = { script: 'script-nonce-slot-9f1c', style: 'style-nonce-slot-9f1c' };
const slot = (kind: keyof CspNonces) => `'nonce-${SLOTS[kind]}'`;

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
  const pageHeaders = withNonceSlots(headersSetBy(helmet(pageHelmetOptions(options, slot))));
  const dataHeaders = headersSetBy(helmet(helmetOptions(options, DATA_DIRECTIVES)));
  return (req, res) => {
    if (asksForPageData(req.headers)) {
      for (const [name, value] of dataHeaders) res.setHeader(name, value);
      return NO_NONCES;
    }
    const nonces = freshNonces();
    for (const [name, value] of pageHeaders) res.setHeader(name, typeof value === 'string' ? value : value(nonces));
    return nonces;
  };
}

/** A header value as helmet wrote it, or (the policy) a function putting a document's nonces into its slots. */
type SlottedValue = string | ((nonces: CspNonces) => string);

/** helmet's headers read once with the slots, per-request values (the policy) made a function of the nonces: the
 * same headers helmet's middleware sets, without re-running it (and its checks) for every document. */
function withNonceSlots(headers: Array<[string, string]>): Array<[string, SlottedValue]> {
  return headers.map(([name, value]) => {
    const pieces = value.split(new RegExp(`(${SLOTS.script}|${SLOTS.style})`));
    if (pieces.length === 1) return [name, value];
    const kinds = pieces.map((piece) => (piece === SLOTS.script ? 'script' : piece === SLOTS.style ? 'style' : ''));
    return [
      name,
      (nonces: CspNonces) => {
        let text = '';
        for (let i = 0; i < pieces.length; i++) {
          const kind = kinds[i];
          text += kind ? nonces[kind as keyof CspNonces] : pieces[i];
        }
        return text;
      },
    ];
  });
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

/** helmet's options for a document, `nonce` giving each CSP nonce source (e.g. `'nonce-…'`). */
export function pageHelmetOptions(options: SecurityOptions, nonce: (kind: keyof CspNonces) => string): HelmetOptions {
  return helmetOptions(options, pageDirectives(options, nonce));
}

function pageDirectives(options: SecurityOptions, nonce: (kind: keyof CspNonces) => string): Directives {
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
