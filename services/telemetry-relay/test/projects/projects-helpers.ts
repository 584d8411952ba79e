// A relay started on a projects file (PROJECTS_FILE), with its live projects at hand for reload tests.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@app/test-kit';
import type { LiveProjects } from '../../src/projects/live.ts';
import { type RunningRelay, testConfig } from '../with-relay.ts';

export interface ProjectsRelay extends RunningRelay {
  projects: LiveProjects;
  file: string;
  /** Replaces the file's content (a plain write; the ConfigMap's symlink swap is tested on its own). */
  write(document: unknown): void;
  /** Log lines the relay wrote (warn and up unless LOG_LEVEL says otherwise). */
  logs: Array<Record<string, unknown>>;
}

export function writeProjectsFile(document: unknown, dir = tempDir(), name = 'projects.json'): string {
  const file = join(dir, name);
  writeFileSync(file, typeof document === 'string' ? document : JSON.stringify(document));
  return file;
}

export async function startProjectsRelay(document: unknown, env: Record<string, string> = {}): Promise<ProjectsRelay> {
  const { buildApp } = await import('../../src/app.ts');
  // env.PROJECTS_FILE: a file the test laid out itself (a ConfigMap's symlinks); else `document` written to one.
  const file = env.PROJECTS_FILE ?? writeProjectsFile(document);
  const config = testConfig({ LOG_LEVEL: 'warn', ...env, PROJECTS_FILE: file });
  const logs: Array<Record<string, unknown>> = [];
  const { app, readiness, projects } = await buildApp(config, {
    logStream: { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    tunnel: `${url}${config.tunnelPaths[0]}`,
    app,
    readiness,
    config,
    projects,
    file,
    logs,
    write: (next) => writeFileSync(file, typeof next === 'string' ? next : JSON.stringify(next)),
    close: () => app.close(),
  };
}

/** The value of one sample line of the relay's /metrics (0 when absent). */
export async function metricValue(url: string, sample: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? 0 : Number(line.slice(sample.length + 1));
}
