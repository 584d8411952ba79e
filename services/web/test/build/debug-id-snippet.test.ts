// The Debug ID snippet rewrite (build/debug-id-snippet.ts) on chunks the real Sentry CLI injected: no Error is made
// at a chunk's top level any more, the SDK still finds each chunk's Debug ID by its URL, and the maps stay exact.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getFilenameToDebugIdMap } from '@sentry/core';
import { defaultStackParser } from '@sentry/react';
import { createSentrySDK } from 'sentry';
import { afterEach, describe, expect, it } from 'vitest';
import { debugIdRegistration, rewriteDebugIdSnippets, withoutStackRead } from '../../build/debug-id-snippet.ts';

type Registry = { _sentryDebugIds?: Record<string, string> };
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  delete (globalThis as Registry)._sentryDebugIds;
});

/** Chunks with their maps, Debug IDs injected by the CLI as the build does. */
async function injected(chunks: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'debug-id-snippet-'));
  dirs.push(dir);
  for (const [name, code] of Object.entries(chunks)) {
    writeFileSync(join(dir, name), code);
    const map = { version: 3, file: name, sources: [name], names: [], mappings: 'AAAA;AACA' };
    writeFileSync(join(dir, `${name}.map`), JSON.stringify(map));
  }
  await createSentrySDK({ env: {} }).sourcemap.inject({ directory: dir, ext: '.js' });
  return dir;
}

describe('the Debug ID snippet without a stack read', () => {
  it.each([
    ['a module with imports', 'import { x } from "./b.js";\nexport const y = x + 1;\n'],
    ['a module with a top-level await', 'await new Promise((r) => setTimeout(r, 0));\nexport const y = 1;\n'],
    ['one line, no newline at the end', 'export const y = 1;'],
  ])('rewrites what the CLI injected into %s, same lines after the first', async (_, source) => {
    const dir = await injected({ 'a.js': source, 'b.js': 'export const x = 1;\n' });
    const before = readFileSync(join(dir, 'a.js'), 'utf8');
    expect(before).toContain('(new e.Error).stack');
    rewriteDebugIdSnippets(dir);
    const after = readFileSync(join(dir, 'a.js'), 'utf8');
    expect(after).not.toMatch(/Error\)?\.stack|new [\w.]*Error/);
    // The CLI's own line replaced by one line: every mapping of the map the CLI shifted still points where it did.
    expect(after.split('\n').slice(1)).toEqual(before.split('\n').slice(1));
    const debugId = JSON.parse(readFileSync(join(dir, 'a.js.map'), 'utf8')).debugId as string;
    expect(after.split('\n')[0]).toBe(debugIdRegistration(debugId));
  });

  it('is taken by the CLI for an injected chunk: inject again (as its upload does) changes nothing', async () => {
    const dir = await injected({ 'a.js': 'export const y = 1;\n' });
    rewriteDebugIdSnippets(dir);
    const files = ['a.js', 'a.js.map'].map((name) => readFileSync(join(dir, name), 'utf8'));
    await createSentrySDK({ env: {} }).sourcemap.inject({ directory: dir, ext: '.js' });
    expect(['a.js', 'a.js.map'].map((name) => readFileSync(join(dir, name), 'utf8'))).toEqual(files);
  });

  it("registers each chunk under a key the SDK's stack parser reads as the chunk's URL", async () => {
    const dir = await injected({ 'a.js': 'import "./b.js";\nexport const a = 1;\n', 'b.js': 'export const b = 2;\n' });
    rewriteDebugIdSnippets(dir);
    await import(pathToFileURL(join(dir, 'a.js')).href);
    const ids = Object.fromEntries(
      ['a.js', 'b.js'].map((name) => [
        pathToFileURL(join(dir, name)).href,
        JSON.parse(readFileSync(join(dir, `${name}.map`), 'utf8')).debugId,
      ]),
    );
    expect(Object.keys((globalThis as Registry)._sentryDebugIds ?? {})).toHaveLength(2);
    expect(getFilenameToDebugIdMap(defaultStackParser)).toEqual(ids);
  });

  it('leaves a chunk without a Debug ID as it is', () => {
    const code = 'export const y = 1;\n';
    expect(withoutStackRead(code)).toBe(code);
  });

  it.each([
    ['a snippet of another form', ';!function(){var e=globalThis;e._sentryDebugIds={}}();\nexport {};\n'],
    [
      'the snippet below the first line',
      'export {};\n;!function(){try{var e=globalThis,n=(new e.Error).stack;n&&(e._sentryDebugIds=e._sentryDebugIds||{},e._sentryDebugIds[n]="8045a282-ccac-4787-b093-a8a684424111",e._sentryDebugIdIdentifier="sentry-dbid-8045a282-ccac-4787-b093-a8a684424111")}catch(e){}}();\n',
    ],
  ])('fails the build on %s (a newer CLI would bring the re-parse back silently)', (_, code) => {
    expect(() => withoutStackRead(code)).toThrow(/unknown Sentry Debug ID snippet/);
  });
});
