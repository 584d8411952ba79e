// `node src/main.ts`: the production server for tools that start a service by its src/main.ts (the foundation's
// convention). The service is React + TSX, so it runs from its build: built first when missing or stale.
// The production command loads Sentry with --import instead: `npm start` (see package.json).
import '../scripts/build-if-stale.ts';

const dist = new URL('../dist/server/', import.meta.url);
await import(new URL('instrument.js', dist).href);
await import(new URL('main.js', dist).href);
