// Sending upstream, at least once: delivery, the forwarder it sends with, and the spool it keeps envelopes in (opened
// by the service first, so the ledger counts what a previous process left).

export { openSpool, type Spool } from '../spool/spool.ts';
export { createDelivery, type Delivery, type DeliveryOptions } from './delivery.ts';
export { reportSpoolRecovered } from './dropped.ts';
export { createForwarder, type Forwarder } from './forward.ts';
