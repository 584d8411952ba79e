// The built client's files. Their names carry a content hash, so they are cached for a year and never revalidated;
// a new build has new names. Anything else under /assets/ is a plain 404 (never the HTML app). With compression on,
// the build's .br/.gz copies are sent to browsers that accept them (with Vary: Accept-Encoding).
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

export async function staticAssets(
  app: FastifyInstance,
  options: { root: string; compression: boolean },
): Promise<void> {
  await app.register(fastifyStatic, {
    root: `${options.root}/assets`,
    prefix: '/assets/',
    wildcard: true,
    index: false,
    preCompressed: options.compression,
    cacheControl: false,
    etag: false,
    lastModified: false,
    setHeaders(reply) {
      reply.header('cache-control', 'public, max-age=31536000, immutable');
    },
  });
}
