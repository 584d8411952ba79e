// The projects in force, swapped whole on a reload: a good file replaces the set (new envelopes take it, those in
// flight finish with theirs), a bad one is refused and the old set kept, with a warn line naming every problem and
// relay_config_reloads_total{outcome="refused"}. Nothing about connections or the spool changes.
import type { FastifyBaseLogger } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { DocumentOptions } from './document.ts';
import { readProjectsFile } from './file.ts';
import { compileProjectSet, type ProjectSet, type ProjectSetOptions } from './project-set.ts';
import type { FileProblem } from './schema.ts';

export type ReloadOutcome = { outcome: 'applied' | 'unchanged' } | { outcome: 'refused'; problems: FileProblem[] };

export interface LiveProjects {
  /** The set new envelopes take: read once per request, at its start. */
  current(): ProjectSet;
  /** Reads PROJECTS_FILE again and applies it, unless it is bad or unchanged. */
  reload(trigger: string): ReloadOutcome;
}

export interface LiveProjectsOptions {
  /** PROJECTS_FILE; undefined: the environment's implicit project, nothing to reload. */
  file: string | undefined;
  document: DocumentOptions;
  set: ProjectSetOptions;
  registry: Registry;
  log: FastifyBaseLogger;
}

export function createLiveProjects(initial: ProjectSet, options: LiveProjectsOptions): LiveProjects {
  let current = initial;
  const reloads = new Counter({
    name: 'relay_config_reloads_total',
    help: 'Reloads of PROJECTS_FILE (SIGHUP or a change of its directory), by outcome: applied or refused (old kept)',
    labelNames: ['outcome'],
    registers: [options.registry],
  });
  for (const outcome of ['applied', 'refused']) reloads.labels(outcome).inc(0);
  const info = new Gauge({
    name: 'relay_projects_config_info',
    help: 'The projects in force: sha256 (first 16 hex digits) of PROJECTS_FILE ("env": the environment), project count',
    labelNames: ['sha256', 'projects'],
    registers: [options.registry],
  });
  const loadedAt = new Gauge({
    name: 'relay_projects_config_loaded_timestamp_seconds',
    help: 'When the projects in force were loaded (startup or the last applied reload)',
    registers: [options.registry],
  });
  const publish = (set: ProjectSet) => {
    info.reset();
    info.labels(set.sha256?.slice(0, 16) ?? 'env', String(set.projects.length)).set(1);
    loadedAt.set(set.loadedAt / 1000);
  };
  publish(initial);

  return {
    current: () => current,
    reload(trigger) {
      if (options.file === undefined) {
        options.log.info({ trigger }, 'no PROJECTS_FILE to reload: the environment configures the one project');
        return { outcome: 'unchanged' };
      }
      const result = readProjectsFile(options.file, options.document);
      if ('problems' in result) {
        reloads.labels('refused').inc();
        options.log.warn(
          { trigger, file: options.file, problems: result.problems.map((p) => `${p.path}: ${p.message}`) },
          'projects file refused; the projects loaded before stay in force',
        );
        return { outcome: 'refused', problems: result.problems };
      }
      if (result.sha256 === current.sha256) return { outcome: 'unchanged' };
      current = compileProjectSet(result.projects, options.set, result.sha256);
      reloads.labels('applied').inc();
      publish(current);
      options.log.info(
        { trigger, file: options.file, sha256: result.sha256, projects: result.projects.length },
        'projects file applied',
      );
      return { outcome: 'applied' };
    },
  };
}
