// One attack on the relay container with everything that judges it running alongside: a kubelet-like liveness
// prober, the container's memory sampled, legitimate envelopes; then whether every envelope answered 200 reached
// upstream. The figures are printed as one line ("hostile: …") and checked by the expect* functions.

import type { SlowClientReport } from '@app/test-kit';
import { expect } from 'vitest';
import type { CaptureContainer } from './containers.ts';
import { type Answer, isCleanRefusal, legitimateTraffic, tally } from './hostile.ts';
import { type ProbeReport, type ProberOptions, startProber } from './liveness-prober.ts';
import { type MemoryReport, sampleMemory } from './memory-sampler.ts';
import type { ContainerState, PodRelay } from './relay-pod.ts';

const MiB = 1024 * 1024;

/** What surviving an attack means. */
export interface Bounds {
  probe: Omit<ProberOptions, 'url'>;
  livenessP95Ms: number;
  /** Peak anonymous memory must stay below this. */
  memoryCeilingBytes: number;
  /** A slow connection must be cut within the relay's timeout plus this. */
  cutMarginMs: number;
}

export interface Arena {
  relay: PodRelay;
  capture: CaptureContainer;
  /** The DSN legitimate envelopes are sent to. */
  dsn: string;
  memoryLimitBytes: number;
  bounds: Bounds;
}

export type Labelled = { label: string; answer: Answer };
export type Legit = { eventId: string; answer: Answer; ms?: number };

/** What the relay went through during one phase of an attack. */
export interface Survival {
  probes: ProbeReport;
  memory: MemoryReport;
  state: ContainerState;
  legit: Legit[];
  /** Envelopes answered 200 (legitimate or not) that never reached upstream. */
  missing: string[];
}

/** The judges of one phase: started together, stopped together. */
export function watch(arena: Arena) {
  const memory = sampleMemory(arena.relay.container().getId());
  const prober = startProber({ url: arena.relay.livenessUrl(), ...arena.bounds.probe });
  const legit = legitimateTraffic(arena.relay.tunnelUrl(), arena.dsn);
  return {
    /** Stops the legitimate traffic, the prober and the sampler; `missing` is left for the caller to fill. */
    async stop(): Promise<Survival> {
      const answers = await legit.stop();
      const probes = await prober.stop();
      return { probes, memory: await memory.stop(), state: await arena.relay.state(), legit: answers, missing: [] };
    },
  };
}

/** Runs `attack` with the judges around it, prints the figures and returns them. */
export async function underAttack(
  arena: Arena,
  name: string,
  attack: (url: string) => Promise<Labelled[]>,
  note: () => string = () => '',
): Promise<Survival & { attacks: Labelled[] }> {
  await arena.capture.clear();
  const judges = watch(arena);
  const attacks = await attack(arena.relay.tunnelUrl());
  const survival = await judges.stop();
  survival.missing = await missingUpstream(arena, [...acceptedIds(survival.legit), ...acceptedIds(attacks)], 20_000);
  report(arena, name, survival, [`attacks ${JSON.stringify(byLabel(attacks))}`, note()].filter(Boolean).join('; '));
  return { ...survival, attacks };
}

/** Event ids answered 200 (legitimate envelopes by the id they were sent with, attacks by the relay's answer). */
export function acceptedIds(answers: (Legit | Labelled)[]): string[] {
  return answers.flatMap((a) => {
    const id = 'eventId' in a ? a.eventId : a.answer.eventId;
    return a.answer.status === 200 && id ? [id] : [];
  });
}

/** Event ids of `ids` not upstream after waiting up to `timeoutMs` (less if the relay gave up restarting). */
export async function missingUpstream(arena: Arena, ids: string[], timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let missing = ids;
  while (missing.length > 0 && Date.now() < deadline) {
    const received = await arena.capture.eventIds().catch(() => new Set<string>());
    missing = missing.filter((id) => !received.has(id));
    if (missing.length > 0 && (await arena.relay.state()).exited) break;
    if (missing.length > 0) await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return missing;
}

/** Sent attachments that did not arrive upstream whole: by event id, the size and SHA-256 the capture server saw. */
export async function damagedAttachments(arena: Arena, sent: Map<string, string>, size: number): Promise<string[]> {
  type Item = { type: string; length?: number; sha256?: string };
  const envelopes = await arena.capture.envelopes();
  return [...sent].flatMap(([eventId, sha256]) => {
    const items = envelopes.filter((e) => e.header.event_id === eventId).flatMap((e) => e.items as Item[]);
    const whole = items.some((i) => i.type === 'attachment' && i.length === size && i.sha256 === sha256);
    return whole ? [] : [eventId];
  });
}

export function byLabel(attacks: Labelled[]): Record<string, Record<string, number>> {
  const labels = [...new Set(attacks.map(({ label }) => label))];
  return Object.fromEntries(
    labels.map((label) => [label, tally(attacks.filter((a) => a.label === label).map(({ answer }) => answer))]),
  );
}

const mib = (bytes: number) => (bytes / MiB).toFixed(0);

/** One line of figures for the team's notes. */
export function report(arena: Arena, name: string, f: Survival, extra: string): void {
  const { probes, memory, state } = f;
  const died = !state.running || state.restartCount > 0;
  process.stdout.write(
    `hostile: ${name}: liveness p95 ${probes.p95Ms.toFixed(0)} ms (control ${probes.controlP95Ms.toFixed(0)} ms), max ${probes.maxMs.toFixed(0)} ms, ` +
      `${probes.failures.length}/${probes.count} failed; peak RSS ${mib(memory.peakRssBytes)} MiB, working set ` +
      `${mib(memory.peakWorkingSetBytes)} MiB of ${mib(arena.memoryLimitBytes)} (${memory.source})` +
      `${died ? `, died${state.oomKilled ? ' (OOM-killed)' : ''}` : ''}` +
      `${state.restartCount > 0 ? `, restarted ${state.restartCount} times` : ''}` +
      `${state.running ? '' : `, exited ${state.exitCode}`}; ${extra}; ` +
      `legit ${JSON.stringify(tally(f.legit.map(({ answer }) => answer)))} (slowest ${slowestLegitMs(f).toFixed(0)} ms); ` +
      `answered 200 but not upstream: ${f.missing.length}\n`,
  );
}

/** How long the slowest legitimate envelope waited for its answer. */
export const slowestLegitMs = (f: Survival): number => Math.max(0, ...f.legit.map(({ ms }) => ms ?? 0));

export const cutNote = (slow: SlowClientReport | undefined) =>
  slow
    ? `cut ${slow.cutAfterMs.length} (slowest after ${(Math.max(0, ...slow.cutAfterMs) / 1000).toFixed(1)} s), ` +
      `never cut ${slow.neverCut}, answers ${JSON.stringify(slow.answers)}`
    : '';

/** The checks every attack class shares; soft, so one run shows every way the relay fell short. */
export function expectSurvived(bounds: Bounds, f: Survival): void {
  expect.soft(f.probes.failures.slice(0, 5), 'liveness probes that failed (first 5)').toEqual([]);
  // Beyond what the same probes to an idle server took meanwhile: the machine's other load is not the service's.
  expect
    .soft(f.probes.p95Ms - f.probes.controlP95Ms, 'liveness p95 beyond the idle control server (ms)')
    .toBeLessThanOrEqual(bounds.livenessP95Ms);
  expect.soft(f.probes.maxMs, 'slowest liveness probe (ms)').toBeLessThanOrEqual(bounds.probe.timeoutMs);
  // Not restarted by its restart policy (RestartCount counts only those; OOMKilled outlives a restart).
  expect.soft(f.state, 'container state').toMatchObject({ running: true, restartCount: 0 });
  expect.soft(f.memory.peakRssBytes, 'peak anonymous memory (bytes)').toBeLessThan(bounds.memoryCeilingBytes);
  expect.soft(tally(f.legit.map(({ answer }) => answer)), 'legitimate envelopes by status').toEqual({
    200: f.legit.length,
  });
  expect.soft(f.missing.slice(0, 5), 'answered 200 but not delivered upstream (first 5)').toEqual([]);
}

export function expectRefused(attacks: Labelled[]): void {
  const unclean = attacks.filter(({ answer }) => !isCleanRefusal(answer));
  expect.soft(byLabel(unclean), 'attack answers other than a 4xx/503 with {error, detail} or a reset').toEqual({});
}

/** Every slow connection was cut by the relay within `timeoutMs` plus the margin, and never with a 5xx but 503. */
export function expectCut(bounds: Bounds, slow: SlowClientReport | undefined, timeoutMs: number): void {
  expect.soft(slow?.neverCut, 'slow connections the relay left open').toBe(0);
  const slowest = Math.max(0, ...(slow?.cutAfterMs ?? []));
  expect.soft(slowest, 'slowest cut (ms)').toBeLessThanOrEqual(timeoutMs + bounds.cutMarginMs);
  const serverErrors = Object.keys(slow?.answers ?? {}).filter((s) => s.startsWith('5') && s !== '503');
  expect.soft(serverErrors, 'slow connections answered with a 5xx').toEqual([]);
}

/** Every attack was answered 200 (it is a valid event, however costly): it must be accepted and delivered. */
export function expectAccepted(attacks: Labelled[]): void {
  const other = attacks.filter(({ answer }) => answer.status !== 200);
  expect.soft(byLabel(other), 'attack envelopes answered other than 200').toEqual({});
  expect.soft(attacks.length, 'attack envelopes sent').toBeGreaterThan(0);
}

/** Another client's envelope waited at most `ms` for its answer while the attack ran. */
export function expectAnsweredWithin(f: Survival, ms: number): void {
  expect.soft(slowestLegitMs(f), 'slowest legitimate envelope (ms)').toBeLessThanOrEqual(ms);
}
