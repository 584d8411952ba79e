// The built stylesheet inlined in the document's head with the style nonce, so the first paint waits for no request.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/server/app.ts';
import { loadConfig } from '../../../src/server/config.ts';
import { assetsFromManifest, INLINE_CSS_MAX_BYTES } from '../../../src/server/pages/assets.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A built client with this stylesheet, as Vite writes it: the manifest names the entry's CSS file. */
function builtClient(css: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'web-css-'));
  dirs.push(dir);
  mkdirSync(join(dir, '.vite'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'assets/entry-abc.css'), css);
  const manifest = {
    'src/client/entry.tsx': { file: 'assets/entry-abc.js', isEntry: true, css: ['assets/entry-abc.css'] },
  };
  writeFileSync(join(dir, '.vite/manifest.json'), JSON.stringify(manifest));
  return join(dir, '.vite/manifest.json');
}

async function documentWith(css: string) {
  const { app } = await buildApp(loadConfig({ LOG_LEVEL: 'silent' }), { assets: assetsFromManifest(builtClient(css)) });
  try {
    const res = await app.inject({ url: '/catalog' });
    const styleNonce = /style-src 'self' 'nonce-([\w-]+)'/.exec(String(res.headers['content-security-policy']))?.[1];
    return { html: res.body, styleNonce };
  } finally {
    await app.close();
  }
}

describe('the stylesheet in the head', () => {
  it('is inlined with the response’s style nonce, so the first paint waits for no request', async () => {
    const { html, styleNonce } = await documentWith('body{margin:0}.app{color:#123}');
    expect(styleNonce).toMatch(/^\w{16,}$/);
    expect(html).toContain(`<style nonce="${styleNonce}">body{margin:0}.app{color:#123}</style>`);
    expect(html).not.toContain('rel="stylesheet"');
  });

  it.each([
    ['too big to ride in every document', `.a{color:red}${' '.repeat(INLINE_CSS_MAX_BYTES)}`],
    ['able to close the element', '.a::after{content:"</style><script>"}'],
  ])('is linked when it is %s', async (_case, css) => {
    const { html } = await documentWith(css);
    expect(html).toContain('<link rel="stylesheet" href="/assets/entry-abc.css">');
    expect(html).not.toMatch(/<style nonce/);
  });
});
