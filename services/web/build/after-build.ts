// A build-only Vite plugin that runs one step on the browser build's output folder: the shape precompress and the
// debug-ID step share. `writeBundle` steps run before `closeBundle` ones, which is how the two are ordered.
import { resolve } from 'node:path';
import type { Plugin } from 'vite';

export function afterBuild(
  name: string,
  hook: 'writeBundle' | 'closeBundle',
  step: (outDir: string) => void | Promise<void>,
): Plugin {
  let outDir = '';
  const run = () => step(outDir);
  return {
    name,
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    ...(hook === 'writeBundle' ? { writeBundle: run } : { closeBundle: run }),
  };
}
