// Renders the kustomize overlays and checks the output offline, the two ways that complement each other (see
// shared notes, ci-feasibility §6): JSON-schema validation (kubernetes-models: types, enums, required fields) and a
// strict TypeScript check against kubernetes-types (excess-property checks catch misspelled fields the schemas allow).
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { parseAllDocuments } from 'yaml';

const run = promisify(execFile);
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const k8sDir = fileURLToPath(new URL('../../k8s/', import.meta.url));
export const overlays = ['dev', 'prod'] as const;
export type Overlay = (typeof overlays)[number];
/**
 * What the tests render: both environments, the Ingress edge (a test overlay: base + components/ingress) and the
 * relay alone as another team deploys it (overlays/relay-only: deploy/k8s/relay and the relay's components).
 */
export const renderings = [...overlays, 'ingress', 'relay-only'] as const;
export type Rendering = (typeof renderings)[number];
const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** A rendered Kubernetes object; `ofKind` gives it its kubernetes-types type once the kind is known. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta & { name: string };
  [field: string]: unknown;
}

export function ofKind<T>(objects: K8sObject[], kind: string): (T & K8sObject)[] {
  return objects.filter((o) => o.kind === kind) as (T & K8sObject)[];
}

export async function kustomize(path: string): Promise<string> {
  const kubectl = process.env.KUBECTL ?? 'kubectl';
  try {
    const { stdout } = await run(kubectl, ['kustomize', path], { maxBuffer: 32 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stderr = '' } = error as { stderr?: string };
    throw new Error(`kubectl kustomize ${path} failed: ${stderr || String(error)}`);
  }
}

export function parseManifests(text: string): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`YAML error: ${doc.errors[0]?.message}`);
    const value = doc.toJS() as K8sObject | null;
    if (value) objects.push(value);
  }
  return objects;
}

export async function renderOverlay(overlay: Rendering): Promise<K8sObject[]> {
  const path = overlay === 'ingress' ? `${fixtures}ingress-overlay` : `${k8sDir}overlays/${overlay}`;
  return parseManifests(await kustomize(path));
}

export const describeObject = (o: K8sObject) => `${o.kind} ${o.metadata?.name} (${o.apiVersion})`;

type Model = new (data: unknown) => { validate(): void };

/** Envoy Gateway's CRDs have no model package: a vendored JSON schema (fixtures/schemas, source noted inside). */
const vendoredSchemas: Record<string, string> = {
  'gateway.envoyproxy.io/v1alpha1 BackendTrafficPolicy': 'envoy-gateway-backendtrafficpolicy.json',
};

function vendoredModel(file: string): Model {
  const validate = new Ajv({ allErrors: true }).compile(JSON.parse(readFileSync(`${fixtures}schemas/${file}`, 'utf8')));
  return class {
    readonly data: unknown;
    constructor(data: unknown) {
      this.data = data;
    }
    validate() {
      if (!validate(this.data)) {
        throw new Error(validate.errors?.map((e) => `${e.instancePath} ${e.message}`).join('; '));
      }
    }
  };
}

/** The model module for an apiVersion: core and built-in groups from kubernetes-models, the CRDs we use from theirs. */
async function modelFor(apiVersion: string, kind: string): Promise<Model | undefined> {
  const vendored = vendoredSchemas[`${apiVersion} ${kind}`];
  if (vendored) return vendoredModel(vendored);
  const module = apiVersion.startsWith('monitoring.coreos.com/')
    ? `@kubernetes-models/prometheus-operator/${apiVersion}`
    : apiVersion.startsWith('gateway.networking.k8s.io/')
      ? `@kubernetes-models/gateway-api/${apiVersion}`
      : `kubernetes-models/${apiVersion}`;
  try {
    return (await import(module))[kind];
  } catch {
    return undefined;
  }
}

/** Schema problems, one line per invalid object; empty when everything validates. Unknown kinds are problems. */
export async function schemaProblems(objects: K8sObject[]): Promise<string[]> {
  const problems: string[] = [];
  for (const object of objects) {
    const Model = await modelFor(object.apiVersion, object.kind);
    if (!Model) {
      problems.push(`${describeObject(object)}: no schema for this apiVersion/kind`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      problems.push(`${describeObject(object)}: ${(error as Error).message}`);
    }
  }
  return problems;
}

/**
 * Where a kind's TypeScript type lives: kubernetes-types for built-in kinds, the model package's interface for CRDs;
 * undefined for a vendored schema (no types; its additionalProperties: false catches misspelled fields instead).
 */
function typeFor(apiVersion: string, kind: string): { from: string; name: string } | undefined {
  if (vendoredSchemas[`${apiVersion} ${kind}`]) return undefined;
  if (apiVersion.startsWith('monitoring.coreos.com/')) {
    return { from: `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`, name: `I${kind}` };
  }
  if (apiVersion.startsWith('gateway.networking.k8s.io/')) {
    return { from: `@kubernetes-models/gateway-api/${apiVersion}/${kind}`, name: `I${kind}` };
  }
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['core', apiVersion];
  return { from: `kubernetes-types/${group?.replace(/\.k8s\.io$/, '')}/${version}`, name: kind };
}

/**
 * Type-checks the objects with tsc (strict, excess-property checks): each becomes `const mN: <Kind> = <JSON>`.
 * Returns tsc's diagnostics (empty when clean). The scratch project lives under deploy/.cache (gitignored) so that
 * module resolution finds the repository's node_modules.
 */
export async function typeProblems(objects: K8sObject[], name: string): Promise<string> {
  const dir = fileURLToPath(new URL(`../../.cache/typecheck-${name}/`, import.meta.url));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const imports = new Map<string, string>();
  const lines: string[] = [];
  objects.forEach((object, index) => {
    const type = typeFor(object.apiVersion, object.kind);
    if (!type) return;
    const { from, name: typeName } = type;
    let alias = imports.get(from);
    if (!alias) {
      alias = `t${imports.size}`;
      imports.set(from, alias);
    }
    lines.push(
      `// ${describeObject(object)}`,
      `export const m${index}: ${alias}.${typeName} = ${JSON.stringify(object, null, 2)};`,
    );
  });
  const header = [...imports].map(([from, alias]) => `import type * as ${alias} from '${from}';`);
  writeFileSync(`${dir}manifests.ts`, `${[...header, ...lines].join('\n')}\n`);
  writeFileSync(
    `${dir}tsconfig.json`,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'esnext',
        moduleResolution: 'bundler',
        target: 'es2024',
        types: [],
        skipLibCheck: true,
      },
      files: ['manifests.ts'],
    }),
  );
  try {
    await run(`${repoRoot}node_modules/.bin/tsc`, ['-p', dir], { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 });
    return '';
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    return `${stdout}${stderr}`.trim() || String(error);
  }
}
