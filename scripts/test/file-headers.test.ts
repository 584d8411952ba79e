// Every source file opens with its header comment (the rule in docs/development.md): the repository holds to it,
// and the checker tells a header from what only looks like one.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { filesInScope, headerOffenders, headerProblem } from '../file-headers.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('file headers', () => {
  it('open every source file in scope, before its imports', () => {
    const files = filesInScope(root);
    expect(files).toEqual(
      expect.arrayContaining([
        'services/telemetry-relay/src/app.ts',
        'services/web/src/client/entry.tsx',
        'packages/telemetry-rules/src/rules.ts',
        'services/web/test/with-web.ts',
        'e2e/vitest.config.ts',
        'scripts/file-headers.ts',
      ]),
    );
    expect(files.filter((file) => file.includes('/bench/peers/'))).toEqual([]);
    expect(headerOffenders(root, files)).toEqual([]);
  });
});

describe('the checker', () => {
  const header = '// Why this file exists.\n';
  it.each<[string, string, string | undefined]>([
    ['a // header, then imports', `${header}import { x } from './x.ts';\n`, undefined],
    ['a header of several lines', `${header}// And why it is built so.\n\nexport const x = 1;\n`, undefined],
    ['a shebang, then the header', `#!/usr/bin/env node\n${header}`, undefined],
    ['TypeScript references, then the header', `/// <reference types="vite/client" />\n${header}`, undefined],
    ['a directive below the header', `${header}// @ts-nocheck\n`, undefined],
    ['imports first', `import { x } from './x.ts';\n\n${header}`, 'starts with code (import { x } from'],
    ['no comment at all', 'export const x = 1;\n', 'starts with code (export const x = 1;)'],
    ['a JSDoc block', '/** Why this file exists. */\nexport const x = 1;\n', 'starts with a block comment'],
    ['a block comment', '/*\n * Why.\n */\n', 'starts with a block comment'],
    ['a directive in the header’s place', '// @ts-nocheck\n', 'starts with a directive'],
    ['a lint suppression in the header’s place', '// biome-ignore lint: x\n', 'starts with a directive'],
    ['an empty // line', '//\nexport const x = 1;\n', 'starts with code (//)'],
    ['a blank first line', `\n${header}`, 'starts with a blank line'],
    ['an empty file', '', 'empty file'],
  ])('%s', (_, text, problem) => {
    const found = headerProblem(text);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });
});
