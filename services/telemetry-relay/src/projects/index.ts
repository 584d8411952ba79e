// The projects in force from the configuration: compiled once, then swapped whole by SIGHUP or a watched change.
import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { ProjectsConfig } from './env-config.ts';
import { createLiveProjects, type LiveProjects } from './live.ts';
import { compileProjectSet, type ProjectSetOptions } from './project-set.ts';
import { watchProjectsFile } from './watch.ts';

export type { LiveProjects } from './live.ts';

/** The live projects and the watch on PROJECTS_FILE's directory (none without a file); `close` stops watching. */
export function loadProjects(
  config: ProjectsConfig,
  set: ProjectSetOptions,
  metrics: { registry: Registry; log: FastifyBaseLogger },
): { live: LiveProjects; close(): void } {
  const live = createLiveProjects(compileProjectSet(config.initial, set, config.sha256), {
    file: config.file,
    document: { derivedTunnelPaths: config.derivedTunnelPaths },
    set,
    registry: metrics.registry,
    log: metrics.log,
  });
  const watcher =
    config.file === undefined
      ? undefined
      : watchProjectsFile(config.file, () => live.reload('watch'), config.watchDebounceMs);
  return { live, close: () => watcher?.close() };
}
