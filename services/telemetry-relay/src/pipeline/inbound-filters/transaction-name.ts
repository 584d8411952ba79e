// relay-filter/src/transaction_name.rs with Sentry's health-check globs (sentry `HEALTH_CHECK_GLOBS`, sent to Relay
// as `ignoreTransactions`): transactions only, never errors that happen to name the same route.
import { eventType, transactionName } from './event-fields.ts';
import { compileGlobs } from './glob.ts';
import type { InboundFilter } from './types.ts';

export const HEALTH_CHECK_GLOBS = [
  '*healthcheck*',
  '*heartbeat*',
  '*/health',
  '*/healthy',
  '*/healthz',
  '*/live',
  '*/livez',
  '*/ready',
  '*/readyz',
  '*/ping',
];

const HEALTH_CHECKS = compileGlobs(HEALTH_CHECK_GLOBS);

export const filteredTransaction: InboundFilter = {
  id: 'filtered-transaction',
  kinds: ['transaction'],
  keys: ['transaction'],
  mayMatch: (_key, value) => HEALTH_CHECKS.test(value),
  matches(event) {
    const name = transactionName(event);
    return eventType(event) === 'transaction' && name !== undefined && HEALTH_CHECKS.test(name);
  },
};
