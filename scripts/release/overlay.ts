// Pins an overlay's images to pushed digests: what `kustomize edit set image ssr-telemetry/web=<repo>@sha256:…`
// does, as an edit of the kustomization's `images:` that keeps its comments (kubectl has kustomize's build built
// in, not its `edit`, and a standalone kustomize binary is not assumed).
import { readFileSync, writeFileSync } from 'node:fs';
import { isMap, isSeq, parseDocument } from 'yaml';
import { ReleaseError } from './plan.ts';

export interface Pin {
  /** The image name the base manifests use, e.g. ssr-telemetry/web. */
  name: string;
  newName: string;
  digest: string;
}

export function pinImages(overlayDir: string, pins: Pin[]): string {
  const path = `${overlayDir}/kustomization.yaml`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new ReleaseError(`no kustomization at ${path} (RELEASE_OVERLAY names the overlay directory)`);
  }
  const document = parseDocument(text);
  const images = document.get('images');
  if (!isSeq(images)) throw new ReleaseError(`${path} has no images: list to pin`);
  for (const pin of pins) {
    const entry = images.items.find((item) => isMap(item) && item.get('name') === pin.name);
    if (!isMap(entry)) throw new ReleaseError(`${path}: images has no entry named ${pin.name}`);
    entry.set('newName', pin.newName);
    // A digest wins over a tag in kustomize; the tag goes so nobody reads it as what runs.
    entry.delete('newTag');
    entry.set('digest', pin.digest);
  }
  writeFileSync(path, document.toString({ lineWidth: 0 }));
  return path;
}
