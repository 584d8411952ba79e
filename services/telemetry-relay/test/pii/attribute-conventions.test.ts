// The attributes exempt from the default scrubbing rules (src/pii/attribute-conventions.ts) are exactly those
// @sentry/conventions marks `manual` or `never`, in the version pinned in package.json. After a bump of the
// package: `UPDATE_CONVENTIONS=1 npx vitest run --project telemetry-relay test/pii/attribute-conventions.test.ts`.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ATTRIBUTE_METADATA } from '@sentry/conventions/attributes';
import { describe, expect, it } from 'vitest';
import { CONVENTIONS_VERSION, UNSCRUBBED_ATTRIBUTES } from '../../src/pii/attribute-conventions.ts';
import { isExemptAttribute } from '../../src/pii/attributes.ts';

const FILE = new URL('../../src/pii/attribute-conventions.ts', import.meta.url);
/** The package's own package.json, beside the entry point it exports (it exports no `./package.json`). */
const entry = createRequire(import.meta.url).resolve('@sentry/conventions');
const installed = (
  JSON.parse(readFileSync(new URL('../package.json', `file://${entry.replace(/dist\/[^/]+$/, 'dist/')}`), 'utf8')) as {
    version: string;
  }
).version;
const pinned = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    devDependencies: Record<string, string>;
  }
).devDependencies['@sentry/conventions'];
const exempt = Object.entries(ATTRIBUTE_METADATA)
  .filter(([, meta]) => meta.applyScrubbing.key !== 'auto')
  .map(([name]) => name)
  .sort();

/** The list as the module writes it: space-separated lines of at most 116 characters. */
function listText(names: readonly string[]): string {
  const lines: string[] = [];
  let line = '';
  for (const name of names) {
    if (line !== '' && line.length + name.length + 1 > 114) {
      lines.push(`  ${line}`);
      line = '';
    }
    line += line === '' ? name : ` ${name}`;
  }
  lines.push(`  ${line}`);
  return `\n${lines.join('\n')}\n`;
}

if (process.env.UPDATE_CONVENTIONS === '1') {
  const source = readFileSync(FILE, 'utf8')
    .replace(/CONVENTIONS_VERSION = '[^']*'/, `CONVENTIONS_VERSION = '${installed}'`)
    .replace(/UNSCRUBBED_ATTRIBUTES = `[^`]*`/, `UNSCRUBBED_ATTRIBUTES = \`${listText(exempt)}\``);
  writeFileSync(FILE, source);
}

describe('attribute conventions', () => {
  it('are those of the installed @sentry/conventions', () => {
    expect(installed).toBe(pinned);
    expect(CONVENTIONS_VERSION).toBe(installed);
    expect(UNSCRUBBED_ATTRIBUTES.trim().split(/\s+/)).toEqual(exempt);
  });

  it.each([
    ['sentry.release', true], // never
    ['sentry.description', true], // manual
    ['server.address', true], // manual
    ['score.cls', true], // score.<key>, manual
    ['url.full', false], // auto (since the 2026 conventions)
    ['url.query', false],
    ['user.name', false],
    ['http.request.header.cookie', false], // http.request.header.<key>, auto
    ['password', false], // unknown: scrubbed
    ['sentry.releasex', false],
  ])('%s exempt: %s', (name, expected) => {
    expect(isExemptAttribute(name)).toBe(expected);
  });
});
