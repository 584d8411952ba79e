// Development entry (`npm run dev`): Vite in middleware mode in front of Fastify. Browser code gets HMR (React Fast Refresh);
// server modules are loaded through Vite (they import .tsx), so restart `npm run dev` after changing loaders.
import { exitOnConfigError, runService } from '@app/service-kit';
import { createServer as createViteServer } from 'vite';
import { loadConfig } from './config.ts';
import type { Assets } from './pages/assets.ts';

const config = exitOnConfigError('web', () => loadConfig({ SENTRY_ENVIRONMENT: 'development', ...process.env }));
const root = new URL('../..', import.meta.url).pathname;
const vite = await createViteServer({ root, server: { middlewareMode: true }, appType: 'custom' });
const { buildApp } = (await vite.ssrLoadModule('/src/server/app.ts')) as typeof import('./app.ts');

// React Fast Refresh replaces a module in place only when it exports nothing but components: a route's view.tsx
// exports only `Component` (its head metadata lives in meta.ts), so an edited view refreshes without a reload.
const reactRefreshPreamble =
  "import RefreshRuntime from '/@react-refresh';RefreshRuntime.injectIntoGlobalHook(window);" +
  'window.$RefreshReg$=()=>{};window.$RefreshSig$=()=>(t)=>t;window.__vite_plugin_react_preamble_installed__=true;';
const assets: Assets = {
  entry: '/src/client/entry.tsx',
  css: [],
  preloadFor: () => [],
  devHead: (nonce) =>
    `<script type="module" nonce="${nonce}">${reactRefreshPreamble}</script>` +
    `<script type="module" nonce="${nonce}" src="/@vite/client"></script>`,
};

const { app, readiness } = await buildApp(config, {
  assets,
  dev: true,
  wrapFastify: (fastify) => (req, res) => {
    vite.middlewares(req, res, () => fastify(req, res));
  },
});
app.addHook('onClose', async () => vite.close());
await runService(app, { config: config.server, readiness });
