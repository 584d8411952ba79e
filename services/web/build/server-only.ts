// Keeps server-only modules out of the browser build: a file named *.server.ts(x) is loaded as an empty module for
// the browser (build and dev server), so the route globs learn that a route has a loader or action, never its code.
import type { Plugin } from 'vite';

export const SERVER_ONLY_MODULE = /\.server\.tsx?$/;

export function serverOnlyModules(): Plugin {
  return {
    name: 'web:server-only-modules',
    enforce: 'pre',
    load(id, options) {
      if (options?.ssr || !SERVER_ONLY_MODULE.test(id.split('?')[0] ?? id)) return null;
      // A view importing a value from one fails the build ("not exported"); type imports are erased before this.
      return 'export {};';
    },
  };
}
