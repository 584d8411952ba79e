// The Debug ID snippet that Sentry's CLI puts at the top of every chunk registers the chunk under `(new Error).stack`.
// Reading `.stack` makes V8 produce line and column for the frame it is in, the chunk's whole top-level function:
// V8 compiles without source positions and re-parses the entire chunk to collect them (the 232 KB entry: 13–50 ms
// at 4×, on the main thread of every page load). Here the snippet is rewritten to register the same key shape —
// a one-frame stack naming the chunk's URL, which the SDK and early-send.ts parse to the filename — from
// `import.meta.url` (every chunk is an ES module), so no Error is made. Same line count: the maps stay exact.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The CLI's snippet (sentry 0.49, `sourcemap inject`): the chunk's first line, an IIFE keyed by `(new e.Error).stack`. */
const CLI_SNIPPET =
  /^;!function\(\)\{try\{var e=[^;\n]*?,n=\(new e\.Error\)\.stack;n&&\(e\._sentryDebugIds=e\._sentryDebugIds\|\|\{\},e\._sentryDebugIds\[n\]="([0-9a-f-]{36})",e\._sentryDebugIdIdentifier="sentry-dbid-\1"\)\}catch\(e\)\{\}\}\(\);(?=\n|$)/;

/**
 * What replaces it: the same globals, keyed by a stack line the SDK's Chrome parser reads as the chunk's URL. Written
 * `_sentryDebugIds[n]="<id>"` as the CLI writes it: that is how its `upload` (and `inject`) knows a chunk has its
 * Debug ID; otherwise it injects a second snippet into the copies it uploads, whose maps then miss by a line.
 */
export function debugIdRegistration(debugId: string): string {
  return (
    `;{const e=globalThis,n="Error\\n    at "+import.meta.url+":1:1";e._sentryDebugIds=e._sentryDebugIds||{},` +
    `e._sentryDebugIds[n]="${debugId}",e._sentryDebugIdIdentifier="sentry-dbid-${debugId}"}`
  );
}

/**
 * The chunk with its CLI snippet rewritten; unchanged when it has no Debug ID. A chunk that has one in a form this
 * does not know fails the build: a newer CLI would otherwise bring the re-parse back without anybody noticing.
 */
export function withoutStackRead(code: string): string {
  if (!code.includes('_sentryDebugIds')) return code;
  const match = CLI_SNIPPET.exec(code);
  if (!match) throw new Error('unknown Sentry Debug ID snippet at the top of a chunk');
  return code.replace(CLI_SNIPPET, debugIdRegistration(match[1] as string));
}

/** Rewrites every chunk under `assets` (after `sourcemap inject`, before the maps and chunks are copied out). */
export function rewriteDebugIdSnippets(assets: string): void {
  for (const name of readdirSync(assets)) {
    if (!name.endsWith('.js')) continue;
    const path = join(assets, name);
    const code = readFileSync(path, 'utf8');
    const rewritten = withoutStackRead(code);
    if (rewritten !== code) writeFileSync(path, rewritten);
  }
}
