// In-process micro for the stages that read an item's bytes (ignore rules, inbound-filter gate, scrub prescan), on
// the bench event, a fresh Buffer per call as the server has them; each part alone and the three together. The best
// of many short bursts is reported (the figure least bent by a shared machine). The last rows add stage 3 and the
// project lookup (decision 050): one global set of stages as before, one project, and 1000 projects with envelopes
// for 100 of them in turn; the per-envelope cost must not grow with the projects. Usage: node bench/stages-micro.ts
import { ignoreRules } from '@app/telemetry-rules';
import { type Dsn, parseDsn } from '../src/envelope/dsn.ts';
import { createItem } from '../src/envelope/serialize.ts';
import { DEFAULT_SCRUB_SETTINGS } from '../src/pii/index.ts';
import { createPrescan, TRIGGER_WORDS } from '../src/pii/prescan.ts';
import { createAuthorizer } from '../src/pipeline/authorize.ts';
import { createFilter } from '../src/pipeline/filter.ts';
import { DEFAULT_FILTER_IDS } from '../src/pipeline/inbound-filters/settings.ts';
import { createInboundFilters } from '../src/pipeline/inbound-filters/stage.ts';
import { ScanPlan } from '../src/pipeline/item-scan.ts';
import { ItemTexts } from '../src/pipeline/item-text.ts';
import { NO_QUOTAS } from '../src/pipeline/quota/settings.ts';
import { createScrubber } from '../src/pipeline/scrub.ts';
import type { ProjectSettings } from '../src/projects/project.ts';
import { compileProjectSet, type ProjectSet } from '../src/projects/project-set.ts';
import { printBestOfBursts } from './best-of-bursts.ts';
import { browserErrorEnvelope } from './envelopes.ts';

const BURSTS = Number(process.env.MICRO_BURSTS ?? 2000);

const envelope = browserErrorEnvelope('https://k@o.ingest.sentry.io/1');
const event = envelope.subarray(envelope.lastIndexOf(0x0a) + 1);
const copies = Array.from({ length: 64 }, () => Buffer.from(event));
const limits = { maxEventItemBytes: 1 << 20, maxEnvelopeBytes: 20 << 20 };

const plan = new ScanPlan();
const filter = createFilter(ignoreRules, plan);
const inbound = createInboundFilters({ ids: [...DEFAULT_FILTER_IDS], errorMessages: [], releases: [] }, plan);
const scrub = createScrubber(DEFAULT_SCRUB_SETTINGS, limits, plan);
if (!scrub) throw new Error('the defaults scrub');
const prescan = createPrescan(TRIGGER_WORDS);
const alone = new ScanPlan();
alone.add(prescan.scanWords);
const shapes = alone.addShapes(prescan.scanShapes);

const stages = (payload: Buffer) => {
  const item = createItem({ type: 'event' }, payload);
  const items = [item];
  const texts = new ItemTexts();
  const kept = filter({ header: {}, items, bytes: payload } as never, texts).items;
  return scrub(inbound(kept, texts).items, payload.length, texts).items.length;
};

// Stage 3 and the lookup: DSNs of 1000 projects (alike, as most of a company's are), envelopes for 100 in turn.
const dsnText = (i: number) => `https://key${i}@o.ingest.sentry.io/${i}`;
const projectOf = (i: number): ProjectSettings => ({
  dsns: [parseDsn(dsnText(i)) as Dsn],
  origins: [],
  scrub: DEFAULT_SCRUB_SETTINGS,
  inboundFilters: { ids: [...DEFAULT_FILTER_IDS], errorMessages: [], releases: [] },
  ignoreRules,
  quotas: NO_QUOTAS,
});
const setOptions = { loopbackPorts: [], upstreamUrl: undefined, limits };
const oneProject = compileProjectSet([projectOf(0)], setOptions);
const thousand = compileProjectSet(
  Array.from({ length: 1000 }, (_, i) => projectOf(i)),
  setOptions,
);
const headers = Array.from({ length: 100 }, (_, i) => ({ dsn: dsnText(i * 10) }));
let turn = 0;
const global = createAuthorizer({ allowedDsns: thousand.projects.flatMap((p) => p.settings.dsns), loopbackPorts: [] });
const globalStages = (payload: Buffer) => {
  global(headers[turn++ % 100] as { dsn: string });
  return stages(payload);
};
const projectStages = (set: ProjectSet, spread: number) => (payload: Buffer) => {
  const { filter: f, inboundFilter: i, scrub: s } = set.authorize(headers[turn++ % spread] as { dsn: string }).settings;
  const items = [createItem({ type: 'event' }, payload)];
  const texts = new ItemTexts();
  const kept = f({ header: {}, items, bytes: payload } as never, texts).items;
  return s?.(i(kept, texts).items, payload.length, texts).items.length;
};

const rows: Array<[string, (bytes: Buffer) => unknown]> = [
  ['copy only', (b) => b.length],
  ['copy + latin1 decode', (b) => b.toString('latin1').length],
  ['copy + scan (prescan words, shapes)', (b) => alone.found(b)],
  ['copy + scan (every stage)', (b) => plan.found(b)],
  [
    'copy + prescan, scanned (regexes…)',
    (b) => prescan(b, b.toString('latin1'), true, (alone.found(b) & shapes) !== 0),
  ],
  ['the three stages', stages],
  ['stage 3 + stages, global (before)', globalStages],
  ['stage 3 + lookup + stages, 1 project', projectStages(oneProject, 1)],
  ['… 1000 projects, 100 in turn', projectStages(thousand, 100)],
];

console.log(`event ${event.length} bytes; the stages keep ${stages(Buffer.from(event))} item(s)`);
printBestOfBursts(rows, copies, BURSTS);
