// The main-thread trace reader on generated traces: which tasks are long, what their time went to, what counts for TBT.
import { describe, expect, it } from 'vitest';
import { analyseTrace, describeTask, type TraceEvent } from '../src/main-thread-trace.ts';

const ORIGIN = 'http://127.0.0.1:3000';
const PID = 7;
const MAIN = 1;
const ms = (n: number) => n * 1000;

/** A complete event on the page's main thread, times in ms from navigation start (at 1 s). */
const x = (name: string, at: number, dur: number, extra: Partial<TraceEvent> = {}): TraceEvent => ({
  name,
  ph: 'X',
  pid: PID,
  tid: MAIN,
  ts: ms(1_000 + at),
  dur: ms(dur),
  ...extra,
});
const script = (url: string) => ({ args: { data: { url: `${ORIGIN}/assets/${url}` } } });
const instant = (name: string, at: number, extra: Partial<TraceEvent> = {}): TraceEvent => ({
  name,
  ph: 'R',
  pid: PID,
  tid: MAIN,
  ts: ms(1_000 + at),
  ...extra,
});
const NAVIGATION = instant('navigationStart', 0, { args: { data: { documentLoaderURL: `${ORIGIN}/catalog` } } });
const FCP_AT_100 = instant('firstContentfulPaint', 100);

describe('analyseTrace', () => {
  it.each([
    {
      case: 'a module evaluation after FCP',
      events: [x('RunTask', 200, 120), x('v8.evaluateModule', 200, 110)],
      parts: [
        ['script (evaluating modules)', 110],
        ['other', 10],
      ],
      tbt: 70,
    },
    {
      case: 'a long task before FCP: listed, not blocking',
      events: [x('RunTask', 10, 80), x('ParseHTML', 10, 80)],
      parts: [['parse HTML', 80]],
      tbt: 0,
    },
    {
      case: 'layout a script asked for is forced, and named after the script',
      events: [x('RunTask', 300, 90), x('FunctionCall', 300, 90, script('entry.js')), x('Layout', 340, 40)],
      parts: [
        ['script entry.js', 50],
        ['layout forced by script entry.js', 40],
      ],
      tbt: 40,
    },
    {
      case: 'an iframe a promise callback made: its document is named',
      events: [
        x('RunTask', 500, 100),
        x('RunMicrotasks', 500, 100),
        x('DocumentLoader::CommitNavigation', 520, 60),
        x('ParseHTML', 530, 10),
      ],
      parts: [
        ["an iframe's document, made by script (promise callbacks)", 50],
        ['script (promise callbacks)', 40],
        ['parse HTML from script (promise callbacks)', 10],
      ],
      tbt: 50,
    },
    { case: 'a task of 50 ms is not long', events: [x('RunTask', 200, 50)], parts: undefined, tbt: 0 },
  ])('$case', ({ events, parts, tbt }) => {
    const report = analyseTrace([NAVIGATION, FCP_AT_100, ...events], ORIGIN);
    expect(report?.tbt).toBeCloseTo(tbt);
    expect(report?.longTasks[0]?.parts).toEqual(parts);
  });

  it('reads the thread clock scaled when asked (a 20 ms CPU task is 80 ms at 4×)', () => {
    const events = [NAVIGATION, FCP_AT_100, x('RunTask', 200, 30, { tdur: ms(20) }), x('TimerFire', 200, 30)];
    expect(analyseTrace(events, ORIGIN)?.longTasks).toEqual([]);
    const report = analyseTrace(events, ORIGIN, { clock: 'thread', factor: 4 });
    expect(report?.longTasks.map(describeTask)).toEqual(['80 ms at 0.20 s: script (timer) 80']);
    expect(report?.tbt).toBe(30);
  });

  it('takes FCP and the last LCP candidate of the page, and ignores other threads and other pages', () => {
    const other = { ...x('RunTask', 200, 300), tid: 2 };
    const elsewhere = { ...instant('navigationStart', 0), args: { data: { documentLoaderURL: 'http://a.test/' } } };
    const events = [
      elsewhere,
      NAVIGATION,
      FCP_AT_100,
      instant('largestContentfulPaint::Candidate', 150),
      instant('largestContentfulPaint::Candidate', 400),
      other,
    ];
    expect(analyseTrace(events, ORIGIN)).toEqual({ fcp: 100, lcp: 400, tbt: 0, longTasks: [] });
  });

  it.each([
    ['no navigation of the page', [FCP_AT_100]],
    ['no first contentful paint', [NAVIGATION]],
  ])('says nothing with %s', (_case, events) => {
    expect(analyseTrace(events, ORIGIN)).toBeUndefined();
  });
});
