// Security headers through @fastify/helmet: a CSP with a fresh nonce per request for scripts and for styles (the
// feedback widget puts nonced <style> elements in its shadow root), same-origin connections only (telemetry goes
// through the same-origin tunnel), no framing, a strict referrer policy, HSTS in production.
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/** Registered on the root instance (not encapsulated): every response gets the headers, every reply a nonce. */
export async function registerSecurityHeaders(app: FastifyInstance, options: { dev: boolean }): Promise<void> {
  await app.register(helmet, helmetOptions(options));
}

export function helmetOptions(options: { dev: boolean }): FastifyHelmetOptions {
  return {
    enableCSPNonces: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // Vite's dev server injects CSS with inline <style> elements (HMR); a build links files.
        styleSrc: options.dev ? ["'self'", "'unsafe-inline'"] : ["'self'"],
        // The dev server's HMR client talks over a websocket.
        connectSrc: options.dev ? ["'self'", 'ws:'] : ["'self'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    strictTransportSecurity: options.dev ? false : { maxAge: 63_072_000, includeSubDomains: true },
    crossOriginEmbedderPolicy: false,
    frameguard: { action: 'deny' },
  };
}
