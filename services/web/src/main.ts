// Entry for tools that start every service by `node src/main.ts` (the foundation's convention). The service is React
// + TSX, so it runs from its Vite build: built first when missing or stale, then loaded as production loads it
// (server/instrument.ts, then server/main.ts; `npm start` and the image pass the first with --import instead).
import './build-if-stale.ts';

const dist = new URL('../dist/server/', import.meta.url);
await import(new URL('instrument.js', dist).href);
await import(new URL('main.js', dist).href);
