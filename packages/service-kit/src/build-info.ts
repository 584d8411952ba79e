// The `*_build_info` metric every service exports, so a dashboard shows which release and commit are running.
import { Gauge, type Registry } from 'prom-client';

/** What is running: the release (the image's RELEASE) and the commit (REVISION). */
export interface BuildInfo {
  version: string;
  revision: string;
}

/**
 * `<name>` = 1, labelled with the release, the commit and Node's version: the usual `*_build_info` gauge, the same
 * labels in every service so one dashboard query joins them.
 */
export function registerBuildInfo(registry: Registry, name: string, build: BuildInfo): void {
  new Gauge({
    name,
    help: 'Always 1; labelled with what is running: release, revision (commit), Node version',
    labelNames: ['version', 'revision', 'node_version'],
    registers: [registry],
  })
    .labels(build.version, build.revision, process.version)
    .set(1);
}
