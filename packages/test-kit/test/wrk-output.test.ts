// Reading wrk's report: the figures every bench takes from it, from a report as wrk 4 prints it.
import { describe, expect, it } from 'vitest';
import { parseWrkOutput, wrkDurationMs } from '../src/wrk-output.ts';

const REPORT = [
  'Running 5s test @ http://127.0.0.1:3001/monitoring',
  '  1 threads and 10 connections',
  '  Thread Stats   Avg      Stdev     Max   +/- Stdev',
  '    Latency     1.21ms  310.00us   9.87ms   91.02%',
  '    Req/Sec     8.31k   402.11     8.90k    80.00%',
  '  Latency Distribution',
  '     50%    1.15ms',
  '     75%    1.30ms',
  '     90%    1.52ms',
  '     99%    2.50s',
  '  41352 requests in 5.00s, 3.12MB read',
  '  Socket errors: connect 0, read 2, write 1, timeout 3',
  '  Non-2xx or 3xx responses: 7',
  'Requests/sec:   8270.14',
  'Transfer/sec:    638.51KB',
].join('\n');

describe('wrk output', () => {
  it('reads the counts, the rate and the percentiles', () => {
    expect(parseWrkOutput(REPORT)).toEqual({
      requests: 41_352,
      seconds: 5,
      rps: 8270.14,
      p50Ms: 1.15,
      p99Ms: 2500,
      non2xx: 7,
      socketErrors: { connect: 0, read: 2, write: 1, timeout: 3 },
    });
  });

  it('reads a clean run as no errors', () => {
    const clean = REPORT.replace(/ {2}Socket errors.*\n {2}Non-2xx.*\n/, '');
    expect(parseWrkOutput(clean)).toMatchObject({
      non2xx: 0,
      socketErrors: { connect: 0, read: 0, write: 0, timeout: 0 },
    });
  });

  it.each([
    ['456.00us', 0.456],
    ['1.23ms', 1.23],
    ['2.50s', 2500],
    ['', Number.NaN],
    [undefined, Number.NaN],
  ])('%j is %d ms', (text, ms) => {
    expect(wrkDurationMs(text)).toBe(ms);
  });
});
