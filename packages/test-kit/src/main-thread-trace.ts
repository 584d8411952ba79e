// What a page's main thread did, from a Chromium performance trace: each task over 50 ms and what its time went to
// (script by file, style and layout, forced or not, parsing, paint, GC), FCP, LCP and total blocking time after FCP.
// Pure: the trace comes from main-thread-load.ts (a browser) or a test's generated events.

export interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: {
    name?: string;
    data?: { url?: string; functionName?: string; documentLoaderURL?: string };
  };
}

export interface LongTask {
  /** Milliseconds from navigation start. */
  start: number;
  duration: number;
  afterFcp: boolean;
  /** Where its time went, most first: [label, ms]. */
  parts: Array<[string, number]>;
}

export interface MainThreadReport {
  fcp: number;
  lcp: number;
  /** Sum over tasks after FCP of their time past 50 ms (Lighthouse's definition, up to the end of the trace). */
  tbt: number;
  longTasks: LongTask[];
}

export const LONG_TASK_MS = 50;

const SCRIPT =
  /^(EvaluateScript|v8\.evaluateModule|v8\.compileModule|v8\.compile|FunctionCall|TimerFire|FireIdleCallback|RunMicrotasks|EventDispatch|FireAnimationFrame)$/;
/** What ran, when the trace names no script file (module evaluation, promise callbacks, timers). */
const SCRIPT_KINDS: Record<string, string> = {
  'v8.evaluateModule': 'evaluating modules',
  RunMicrotasks: 'promise callbacks',
  FireIdleCallback: 'idle callback',
  TimerFire: 'timer',
  EventDispatch: 'event',
  FireAnimationFrame: 'animation frame',
};
const KINDS: Array<[RegExp, string]> = [
  [/^(UpdateLayoutTree|RecalculateStyles|ScheduleStyleRecalculation)$/, 'style'],
  [/^Layout$/, 'layout'],
  [/^ParseHTML$/, 'parse HTML'],
  [/^ParseAuthorStyleSheet$/, 'parse CSS'],
  [/^(Paint|PrePaint|Layerize|UpdateLayer|CompositeLayers|Commit|PaintImage)$/, 'paint'],
  [/(GC|GCEvent|BlinkGC)/, 'GC'],
  // A new document: the page's own (its window and V8 context made), or an iframe's when a script appended one.
  [/^DocumentLoader::CommitNavigation$/, 'document commit'],
];

const fileOf = (url: string | undefined) => (url ? url.replace(/[?#].*$/, '').replace(/.*\//, '') || url : undefined);

/** The label an event's own time goes to, given the script (if any) it runs inside. */
function labelOf(event: TraceEvent, script: string | undefined): string | undefined {
  for (const [pattern, kind] of KINDS) {
    if (!pattern.test(event.name)) continue;
    // Style or layout asked for by script (a read after a write: focus, scroll, offsetHeight) is forced.
    if (script && (kind === 'style' || kind === 'layout')) return `${kind} forced by ${script}`;
    if (script && kind === 'document commit') return `an iframe's document, made by ${script}`;
    return script && kind !== 'GC' ? `${kind} from ${script}` : kind;
  }
  if (!SCRIPT.test(event.name)) return undefined;
  const file = fileOf(event.args?.data?.url);
  if (file) return `script ${file}`;
  if (script) return script;
  return `script (${SCRIPT_KINDS[event.name] ?? event.name})`;
}

/** Each event's self time (its time less its children's) to the nearest labelled event at or above it. */
function partsOf(task: TraceEvent, inside: TraceEvent[]): Array<[string, number]> {
  const totals = new Map<string, number>();
  const add = (label: string, us: number) => totals.set(label, (totals.get(label) ?? 0) + us);
  type Frame = { end: number; label: string; script: string | undefined; self: number };
  const root: Frame = { end: task.ts + (task.dur ?? 0), label: 'other', script: undefined, self: task.dur ?? 0 };
  const stack: Frame[] = [root];
  const close = (until: number) => {
    while (stack.length > 1 && (stack.at(-1)?.end ?? 0) <= until) {
      const frame = stack.pop() as Frame;
      add(frame.label, frame.self);
    }
  };
  for (const event of inside) {
    close(event.ts);
    const parent = stack.at(-1) as Frame;
    const dur = event.dur ?? 0;
    parent.self -= dur;
    const own = labelOf(event, parent.script);
    const label = own ?? parent.label;
    const script = own?.startsWith('script ') ? own : parent.script;
    stack.push({ end: event.ts + dur, label, script, self: dur });
  }
  close(Number.POSITIVE_INFINITY);
  add(root.label, Math.max(0, root.self));
  return [...totals]
    .map(([label, us]) => [label, us / 1000] as [string, number])
    .filter(([, ms]) => ms >= 1)
    .sort((a, b) => b[1] - a[1]);
}

export interface TaskTime {
  /** Wall time (what a user waits for), or the thread's CPU time (steadier when other processes share the CPU). */
  clock: 'wall' | 'thread';
  /** Durations are multiplied by this: 4 for an unthrottled trace read as Lighthouse's mobile simulation reads it. */
  factor: number;
}

/**
 * The page whose document URL starts with `origin`: its last navigation's renderer main thread, from navigation start
 * to the end of the trace. Undefined when the trace has no navigation start or no FCP (a trace can miss its start).
 */
export function analyseTrace(
  events: TraceEvent[],
  origin: string,
  time: TaskTime = { clock: 'wall', factor: 1 },
): MainThreadReport | undefined {
  const navigation = events
    .filter((e) => e.name === 'navigationStart' && e.args?.data?.documentLoaderURL?.startsWith(origin))
    .at(-1);
  if (!navigation) return undefined;
  const onRenderer = events.filter((e) => e.pid === navigation.pid && e.ts >= navigation.ts);
  const fcp = onRenderer.find((e) => e.name === 'firstContentfulPaint')?.ts;
  if (fcp === undefined) return undefined;
  const lcp = onRenderer.filter((e) => e.name === 'largestContentfulPaint::Candidate').at(-1)?.ts;
  const onMain = onRenderer
    .filter((e) => e.tid === navigation.tid && e.ph === 'X')
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  const ms = (us: number) => us / 1000;
  const report: MainThreadReport = {
    fcp: ms(fcp - navigation.ts),
    lcp: ms((lcp ?? fcp) - navigation.ts),
    tbt: 0,
    longTasks: [],
  };
  const tasks = onMain.filter((e) => e.name === 'RunTask');
  let from = 0;
  for (const task of tasks) {
    const duration = ms((time.clock === 'thread' ? task.tdur : undefined) ?? task.dur ?? 0) * time.factor;
    if (duration <= LONG_TASK_MS) continue;
    const end = task.ts + (task.dur ?? 0);
    while (from < onMain.length && (onMain[from] as TraceEvent).ts < task.ts) from++;
    const inside: TraceEvent[] = [];
    for (let i = from; i < onMain.length && (onMain[i] as TraceEvent).ts < end; i++) {
      const event = onMain[i] as TraceEvent;
      if (event !== task && event.name !== 'RunTask') inside.push(event);
    }
    const scale = duration / Math.max(1, ms(task.dur ?? 0));
    const afterFcp = task.ts >= fcp;
    if (afterFcp) report.tbt += duration - LONG_TASK_MS;
    report.longTasks.push({
      start: ms(task.ts - navigation.ts),
      duration,
      afterFcp,
      parts: partsOf(task, inside).map(([label, part]) => [label, part * scale]),
    });
  }
  return report;
}

/** "412 ms at 1.2 s: script sentry-sdk.js 300, layout forced by script sentry-sdk.js 80" */
export function describeTask(task: LongTask): string {
  const parts = task.parts
    .slice(0, 4)
    .map(([label, ms]) => `${label} ${Math.round(ms)}`)
    .join(', ');
  return `${Math.round(task.duration)} ms at ${(task.start / 1000).toFixed(2)} s${task.afterFcp ? '' : ' (before FCP)'}: ${parts}`;
}
