// Conformance with Relay's inbound filters: rows written from relay-filter's own tests (each names the test it comes
// from) and Sentry's defaults, the item in and Relay's decision (dropped with a FilterStatKey name, or kept). Every
// row runs (a) through the stage and (b) through a relay over loopback HTTP against a capture upstream: a dropped
// item never arrives and the envelope's client report names the reason; a kept one arrives byte for byte.
import { envelope, post } from '@app/test-kit';
import { describe, expect, it } from 'vitest';
import { createItem } from '../../src/envelope/serialize.ts';
import { createInboundFilters } from '../../src/pipeline/inbound-filters/stage.ts';
import { withRelay } from '../with-relay.ts';
import { type FilterRow, RELAY_FILTER_ROWS } from './inbound-filter-rows.ts';

// A new project's defaults plus localhost (opt-in), as the rows from localhost.rs need; the relay below likewise.
const judge = createInboundFilters({
  errorMessages: [],
  releases: [],
  ids: [
    'browser-extensions',
    'web-crawlers',
    'legacy-browsers',
    'filtered-transaction',
    'invalid-csp',
    'chunk-load-error',
    'react-hydration-errors',
    'localhost',
  ],
});

const itemOf = (row: FilterRow) => createItem({ type: row.item }, Buffer.from(JSON.stringify(row.payload)));
const CATEGORY = { event: 'error', transaction: 'transaction', raw_security: 'security' } as const;

describe('inbound filters: Relay conformance (through the stage)', () => {
  it.each(RELAY_FILTER_ROWS)('%s', (_name, row) => {
    const result = judge([itemOf(row)]);
    expect(result.dropped.map((d) => d.reason)).toEqual(row.dropped ? [row.dropped] : []);
    expect(result.discarded).toEqual(
      row.dropped ? [{ reason: row.dropped, category: CATEGORY[row.item], quantity: 1 }] : [],
    );
  });
});

describe('inbound filters: Relay conformance (over HTTP through a relay)', () => {
  const under = withRelay(
    { INBOUND_FILTERS: 'default,localhost', CLIENT_REPORT_INTERVAL_MS: '100' },
    { projectId: '29', publicKey: 'filterkey' },
  );

  it.each(RELAY_FILTER_ROWS.map(([name, row], i) => [name, row, i] as const))('%s', async (_name, row, i) => {
    // A session beside the row's item: the envelope always has something left to forward, with its client report.
    const sid = `row-${i}`;
    const payload = JSON.stringify(row.payload);
    const body = envelope({ dsn: under.dsn }, [
      { header: { type: row.item }, payload },
      { header: { type: 'session' }, payload: JSON.stringify({ sid }) },
    ]);
    expect((await post(under.relay.tunnel, body)).status).toBe(200);
    const arrived = await under.capture.waitFor((e) => e.items.some((item) => item.payload.toString().includes(sid)));
    const types = arrived.items.map((item) => item.type);
    if (row.dropped) {
      expect(types).toEqual(['session', 'client_report']);
      expect(arrived.items[1]?.json).toMatchObject({
        discarded_events: [{ reason: row.dropped, category: CATEGORY[row.item], quantity: 1 }],
      });
    } else {
      expect(types).toEqual([row.item, 'session']);
      expect(arrived.items[0]?.payload.toString()).toBe(payload);
    }
  });

  it('counts each drop in relay_items_dropped_total by the filter id', async () => {
    const text = await (await fetch(`${under.relay.url}/metrics`)).text();
    for (const reason of ['browser-extensions', 'web-crawlers', 'filtered-transaction', 'invalid-csp']) {
      expect(text).toMatch(new RegExp(`relay_items_dropped_total\\{reason="${reason}",type="[a-z_]+"\\} [1-9]`));
    }
  });

  it('drops a CSP report from an extension posted to the security endpoint and reports it later', async () => {
    const report = {
      'csp-report': { 'document-uri': 'https://shop.example.com/', 'blocked-uri': 'chrome-extension://abc' },
    };
    const response = await fetch(`${under.relay.tunnel}/security?dsn=${encodeURIComponent(under.dsn)}`, {
      method: 'POST',
      body: JSON.stringify(report),
      headers: { 'content-type': 'application/csp-report' },
    });
    expect(response.status).toBe(200);
    // Nothing was left to forward: the outcome comes alone, in the next batch of client reports.
    type Report = { discarded_events?: Array<{ reason: string; category: string }> };
    const alone = await under.capture.waitFor(
      (e) => e.items.length === 1 && e.items[0]?.type === 'client_report' && e.body.includes('invalid-csp'),
    );
    expect((alone.items[0]?.json as Report | undefined)?.discarded_events).toContainEqual({
      reason: 'invalid-csp',
      category: 'security',
      quantity: 1,
    });
    expect(
      under.capture.items('raw_security').some((item) => item.payload.toString().includes('chrome-extension')),
    ).toBe(false);
  });
});
