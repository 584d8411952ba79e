// `@vitest-environment happy-dom-on-node`: happy-dom's browser globals for the SDK, every file transformed as Node
// code. Vitest's own happy-dom transforms as Vite's client, which rewrote the in-process relay's `new URL(…,
// import.meta.url)` against the page's location.
import { builtinEnvironments, type Environment } from 'vitest/runtime';

const environment: Environment = {
  ...builtinEnvironments['happy-dom'],
  name: 'happy-dom-on-node',
  viteEnvironment: 'ssr',
};
export default environment;
