// A real OCI registry on loopback for the release suite: Debian's docker-registry (the CNCF distribution registry,
// installed by scripts/machine/setup.sh), storing in a temporary directory. Docker trusts plain HTTP on 127.0.0.0/8.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { freePort } from '@app/test-kit';

export interface LocalRegistry {
  /** host:port, e.g. 127.0.0.1:40123 */
  host: string;
  /** The digest the registry serves for a manifest reference (tag or digest), from its HTTP API. */
  manifestDigest(repository: string, reference: string): Promise<string | null>;
  stop(): Promise<void>;
}

const MANIFEST_TYPES = [
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
].join(', ');

export async function startRegistry(binary = process.env.DOCKER_REGISTRY_BIN ?? '/usr/bin/docker-registry') {
  const dir = mkdtempSync(`${tmpdir()}/registry-`);
  const host = `127.0.0.1:${await freePort()}`;
  writeFileSync(
    `${dir}/config.yml`,
    `version: 0.1\nlog: { level: warn, accesslog: { disabled: true } }\nstorage: { filesystem: { rootdirectory: ${dir}/data } }\nhttp: { addr: "${host}" }\n`,
  );
  let output = '';
  const child: ChildProcess = spawn(binary, ['serve', `${dir}/config.yml`], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (error) => (output += String(error)));
  for (let attempt = 0; ; attempt++) {
    const ok = await fetch(`http://${host}/v2/`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (attempt > 100 || child.exitCode !== null)
      throw new Error(`docker-registry did not start on ${host}:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const registry: LocalRegistry = {
    host,
    async manifestDigest(repository, reference) {
      const response = await fetch(`http://${host}/v2/${repository}/manifests/${reference}`, {
        method: 'HEAD',
        headers: { accept: MANIFEST_TYPES },
      });
      return response.ok ? response.headers.get('docker-content-digest') : null;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return registry;
}
