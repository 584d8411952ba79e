import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// One config, two builds: `vite build` (browser: hashed chunks + manifest in dist/client) and `vite build --ssr`
// (the server bundle in dist/server: main.js, and instrument.js for `node --import`).
export default defineConfig(({ isSsrBuild }) => ({
  plugins: [react()],
  build: isSsrBuild
    ? {
        outDir: 'dist/server',
        emptyOutDir: true,
        target: 'node24',
        rollupOptions: {
          input: { main: 'src/server/main.ts', instrument: 'src/server/instrument.ts' },
          output: { entryFileNames: '[name].js' },
        },
      }
    : {
        outDir: 'dist/client',
        emptyOutDir: true,
        manifest: true,
        target: 'es2022',
        rollupOptions: { input: 'src/client/entry.tsx' },
      },
}));
