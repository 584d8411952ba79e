// The baseline: a bare node:http server rendering the same component tree (layout + 50-item catalog list) with
// React alone. The router context is computed once at startup, so each request costs only the render: the limit
// any framework around it can approach. RENDER=stream (renderToPipeableStream) or RENDER=string (renderToString).
// CONTEXT=per-request does the work any real page must do per request too (issue 26): the request's URL parsed, the
// route matched and its loaders run by `handler.query`, the router context built from them, then the render.
import { createServer } from 'node:http';
import { Writable } from 'node:stream';
import { renderToPipeableStream, renderToString } from 'react-dom/server';
import { createStaticHandler, createStaticRouter, RouterContextProvider, StaticRouterProvider } from 'react-router';
import { routeSettings } from '../src/app/settings.ts';
import { buildServerRoutes, serverRouteTable } from '../src/framework/server/server-routes.ts';
import { enabledRoutes } from '../src/framework/shared/route-entry.ts';

const mode = process.env.RENDER === 'string' ? 'string' : 'stream';
const perRequest = process.env.CONTEXT === 'per-request';
const handler = createStaticHandler(await buildServerRoutes(enabledRoutes(serverRouteTable, false)));
const settings = new Map([[routeSettings, { relatedDelayMs: 0, secureCookies: true }]]);
async function contextFor(url: string) {
  const context = await handler.query(new Request(url), { requestContext: new RouterContextProvider(settings) });
  if (context instanceof Response) throw new Error('unexpected redirect');
  return context;
}
const startContext = await contextFor('http://bench/catalog?limit=50');

const head =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Catalog</title></head><body><div id="root">';
const tail = '</div></body></html>';

// SERVE=fastify: the same bare render answered from a Fastify route (no hooks, no logger, reply.send of the
// document collected into one buffer, as the service sends it): what Fastify itself adds (decision 032).
if (process.env.SERVE === 'fastify') {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  app.get('/*', async (req, reply) => {
    const context = perRequest ? await contextFor(`http://bench${req.url}`) : startContext;
    const router = createStaticRouter(handler.dataRoutes, context);
    const html = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [Buffer.from(head)];
      const sink = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          chunks.push(chunk);
          callback();
        },
        final(callback) {
          chunks.push(Buffer.from(tail));
          resolve(Buffer.concat(chunks));
          callback();
        },
      });
      const stream = renderToPipeableStream(<StaticRouterProvider router={router} context={context} />, {
        onAllReady() {
          stream.pipe(sink);
        },
        onShellError: reject,
      });
    });
    return reply.type('text/html; charset=utf-8').send(html);
  });
  const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
  console.log(`listening ${JSON.stringify({ port: Number(new URL(address).port) })}`);
} else
  createServer(async (req, res) => {
    const context = perRequest ? await contextFor(`http://bench${req.url}`) : startContext;
    const router = createStaticRouter(handler.dataRoutes, context);
    const app = <StaticRouterProvider router={router} context={context} />;
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (mode === 'string') {
      res.end(head + renderToString(app) + tail);
      return;
    }
    const stream = renderToPipeableStream(app, {
      onShellReady() {
        res.write(head);
        stream.pipe(res);
      },
      onAllReady() {},
      onShellError() {
        res.statusCode = 500;
        res.end();
      },
    });
    // React ends the response when done; the tail is written by hooking end (as the service does with a Transform).
    const end = res.end.bind(res);
    res.end = ((...args: Parameters<typeof res.end>) => {
      res.write(tail);
      return end(...args);
    }) as typeof res.end;
  }).listen(Number(process.env.PORT ?? 0), '127.0.0.1', function (this: import('node:net').Server) {
    console.log(`listening ${JSON.stringify(this.address())}`);
  });
