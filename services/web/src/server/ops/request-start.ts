// Node publishes each request on a channel before it emits it to the server, through the wrapper Sentry puts on the
// server's emit: a request decided there and refused gets the SDK's own mark, so no scope, trace or span is made.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Refusal } from './shed-answers.ts';

const REQUEST_START = 'http.server.request.start';
// The mark that keeps a second copy of the SDK from instrumenting a request twice: its wrapper passes straight through.
const SENTRY_INSTRUMENTED = Symbol.for('sentry_http_server_instrumented');
const REFUSED = Symbol('load-shedding.refused');

interface Decided extends IncomingMessage {
  [REFUSED]?: Refusal;
  [SENTRY_INSTRUMENTED]?: boolean;
}

/** Calls `decide` for each request on `server` as Node announces it; returns the unsubscribe. */
export function onRequestStart(server: Server, decide: (req: IncomingMessage, res: ServerResponse) => void) {
  const listener = (message: unknown) => {
    const started = message as { request: IncomingMessage; response: ServerResponse; server: Server };
    if (started.server === server) decide(started.request, started.response);
  };
  subscribe(REQUEST_START, listener);
  return () => unsubscribe(REQUEST_START, listener);
}

/** Marks `req` refused, and done with for Sentry. */
export function markRefused(req: IncomingMessage, refusal: Refusal): void {
  (req as Decided)[REFUSED] = refusal;
  (req as Decided)[SENTRY_INSTRUMENTED] = true;
}

/** The refusal `markRefused` gave `req`, if any. */
export const refusalOf = (req: IncomingMessage): Refusal | undefined => (req as Decided)[REFUSED];
