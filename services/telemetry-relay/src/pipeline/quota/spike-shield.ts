// The spike shield: one error fingerprint repeated past a project's threshold within a window is kept one in N.
// 1-in-N rather than a token bucket: the kept events stay a known fraction of the spike (Sentry's counts times N,
// plus the client report's exact drops), and a spike twice as large still shows as twice as large.
import { hash } from 'node:crypto';
import type { SpikeShieldSettings } from './settings.ts';
import { WindowCounts } from './windows.ts';

/** Fingerprints remembered per project: a flood of distinct ones evicts the least recently seen, never grows. */
export const MAX_FINGERPRINTS = 10_000;

export class SpikeShield {
  readonly #byProject = new Map<string, WindowCounts>();
  readonly #maxFingerprints: number;

  constructor(maxFingerprints = MAX_FINGERPRINTS) {
    this.#maxFingerprints = maxFingerprints;
  }

  /** Fingerprints held, all projects together. */
  get size(): number {
    let size = 0;
    for (const counts of this.#byProject.values()) size += counts.size;
    return size;
  }

  /** Counts one occurrence of `fingerprint` for `project`; true when it is kept. */
  admit(project: string, fingerprint: string, settings: SpikeShieldSettings, now: number): boolean {
    let counts = this.#byProject.get(project);
    if (counts === undefined) {
      counts = new WindowCounts(this.#maxFingerprints);
      this.#byProject.set(project, counts); // projects are allowlisted: bounded
    }
    // A digest, so every entry is the same small size whatever the event's text was (one-shot: no Hash object).
    const key = hash('sha256', fingerprint, 'base64url').slice(0, 22);
    const seen = counts.add(key, 1, settings.window * 1000, now);
    if (seen <= settings.threshold) return true;
    return (seen - settings.threshold) % settings.keepOneIn === 0;
  }
}
