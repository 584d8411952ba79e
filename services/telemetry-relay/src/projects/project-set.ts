// One load of the projects (the file's, or the environment's one implicit project), compiled: the authorizer over
// all their DSNs, each DSN's project in a Map, and the origins any project allows. A reload builds a new set; an
// envelope keeps the set's project it was authorized with until it is answered.
import type { Dsn } from '../envelope/dsn.ts';
import { createAuthorizer } from '../pipeline/authorize.ts';
import type { ScrubLimits } from '../pipeline/scrub.ts';
import { createDestinationCheck } from './destinations.ts';
import { compileProject, type Project, type ProjectAuthorized, type ProjectSettings } from './project.ts';

export interface ProjectSetOptions {
  /** Development only (ALLOW_LOOPBACK_DSNS), with no allowlist: loopback DSNs take the one implicit project. */
  loopbackPorts: readonly number[];
  upstreamUrl: URL | undefined;
  limits: ScrubLimits;
}

export interface ProjectSet {
  readonly projects: readonly Project[];
  /** SHA-256 of the projects file loaded; undefined: the environment's implicit project. */
  readonly sha256: string | undefined;
  /** When this set was loaded, ms since the epoch. */
  readonly loadedAt: number;
  /** Authorization and the project lookup: the header's DSN allowed, with its project (one Map lookup per envelope). */
  authorize(header: Readonly<Record<string, unknown>>): ProjectAuthorized;
  /** Some project allows callers on `origin`: the tunnel's preflight carries no DSN to choose a project by. */
  anyAllowsOrigin(origin: string): boolean;
  /** A spooled row may still go where it was going (destinations.ts) under this set. */
  isAllowedDestination(target: { url: string; dsnKey: string }): boolean;
}

export function compileProjectSet(
  settings: readonly ProjectSettings[],
  options: ProjectSetOptions,
  sha256?: string,
): ProjectSet {
  const shared = new Map();
  const projects = settings.map((one) => compileProject(one, options.limits, shared));
  const byKey = new Map<string, Project>();
  const allowedDsns: Dsn[] = [];
  const origins = new Set<string>();
  for (const project of projects) {
    for (const dsn of project.settings.dsns) {
      byKey.set(dsn.key, project);
      allowedDsns.push(dsn);
    }
    for (const origin of project.settings.origins ?? []) origins.add(origin);
  }
  // Loopback mode has no DSNs to list: its DSNs take the implicit project (the environment's only one).
  const loopbackProject = allowedDsns.length === 0 ? projects[0] : undefined;
  const authorizer = createAuthorizer({ allowedDsns, loopbackPorts: options.loopbackPorts });
  // The authorizer returns one object per allowed DSN: its project is attached once, not per envelope.
  const withProject = new WeakMap<object, ProjectAuthorized>();
  const isAllowedDestination = createDestinationCheck({
    allowedDsns,
    loopbackPorts: options.loopbackPorts,
    upstreamUrl: options.upstreamUrl,
  });
  return {
    projects,
    sha256,
    loadedAt: Date.now(),
    authorize(header) {
      const authorized = authorizer(header);
      let found = withProject.get(authorized);
      if (found === undefined) {
        const project = byKey.get(authorized.dsn.key) ?? loopbackProject;
        if (project === undefined) throw new Error(`no project for the allowed DSN ${authorized.project}`);
        found = { ...authorized, settings: project };
        withProject.set(authorized, found);
      }
      return found;
    },
    anyAllowsOrigin: (origin) => origins.has(origin),
    isAllowedDestination,
  };
}
