// The relay's projects file in Kubernetes (decision 050): a ConfigMap of a stable name, mounted as a directory, so an
// edit reaches the pods as the kubelet's symlink swap the relay watches for, and is reloaded without a rollout.

import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { type K8sObject, ofKind, overlays, renderOverlay } from './support/manifests.ts';

describe.each(overlays)('overlay %s: the relay projects file', (overlay) => {
  let objects: K8sObject[] = [];

  it('is a ConfigMap without a content hash in its name (an edit reloads in place, it does not roll pods)', async () => {
    objects = await renderOverlay(overlay);
    const maps = ofKind<ConfigMap>(objects, 'ConfigMap').filter((c) =>
      c.metadata.name.startsWith('telemetry-relay-projects'),
    );
    expect(maps.map((c) => c.metadata.name)).toEqual(['telemetry-relay-projects']);
    expect(Object.keys(maps[0]?.data ?? {})).toEqual(['projects.yaml']);
  });

  it('is mounted read-only as a directory (a subPath mount never sees an update)', () => {
    const [relay] = ofKind<StatefulSet>(objects, 'StatefulSet').filter((s) => s.metadata.name === 'telemetry-relay');
    const spec = relay?.spec?.template.spec;
    const mount = spec?.containers[0]?.volumeMounts?.find((m) => m.name === 'projects');
    expect(mount).toEqual({ name: 'projects', mountPath: '/etc/telemetry-relay/projects', readOnly: true });
    expect(spec?.volumes?.find((v) => v.name === 'projects')?.configMap).toEqual({
      name: 'telemetry-relay-projects',
      optional: true,
    });
  });
});
