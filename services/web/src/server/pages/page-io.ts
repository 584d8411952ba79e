// What the page code reads of a request and does to its reply: the part of Fastify's request and reply it uses, so
// the page code depends on that much of Fastify and no more.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { CspNonces } from '../http/security-headers.ts';

export interface PageRequest {
  readonly method: string;
  /** Path and query, as the client sent them. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The scheme and host the browser used (forwarded by trusted proxies). */
  readonly protocol: string;
  readonly host: string;
  readonly body?: unknown;
  /** The request's logger: its lines carry the request id and trace id. */
  readonly log: FastifyBaseLogger;
  /** The matched page route's pattern (e.g. /catalog/:slug), set by the page code. */
  routePattern?: string;
}

export interface PageReply {
  readonly raw: ServerResponse;
  readonly cspNonce: CspNonces;
  code(status: number): PageReply;
  header(name: string, value: unknown): PageReply;
  type(contentType: string): PageReply;
  hasHeader(name: string): boolean;
  getHeader(name: string): unknown;
  removeHeader(name: string): PageReply;
  send(payload?: string | Buffer | NodeJS.ReadableStream): PageReply;
}
