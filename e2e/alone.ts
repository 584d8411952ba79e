// The suites whose assertions bound wall-clock latency (liveness p95 under attack, shedding by CPU per turn, a
// prefetched navigation under 50 ms): one at a time after everything else, with the machine to themselves.
export const ALONE = [
  'containers/relay-hostile.test.ts',
  'containers/web-hostile.test.ts',
  'web/shedding-crowd.test.ts',
  'web/load-shedding.test.ts',
  'web/prefetched-navigation.test.ts',
];
