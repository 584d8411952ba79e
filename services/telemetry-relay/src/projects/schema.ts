// The projects file's published JSON Schema (projects.schema.json beside this file), checked with ajv; every
// violation named by its path in the file and what is wrong, as config.ts names every bad variable.
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';

/** One thing wrong with the projects file: where (`projects["<dsn>"].scrub.strict`) and what. */
export interface FileProblem {
  path: string;
  message: string;
}

export const PROJECTS_SCHEMA: Readonly<Record<string, unknown>> = JSON.parse(
  readFileSync(new URL('projects.schema.json', import.meta.url), 'utf8'),
);

// allErrors: a file is fixed in one round, not one error per restart. Compiled once per process.
const validate = new Ajv({ allErrors: true, strict: true, strictTypes: false }).compile(PROJECTS_SCHEMA);

/** The schema's violations in `document`, each once (empty: it conforms). */
export function schemaProblems(document: unknown): FileProblem[] {
  if (validate(document)) return [];
  // A bad key is one problem: its propertyNames error, not also the pattern it failed inside.
  const problems = (validate.errors ?? []).filter((e) => !e.schemaPath.includes('/propertyNames/')).map(describe);
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A JSON pointer (and a key below it) as a reader finds it in the file: `projects["https://…/1"].origins[0]`. */
export function readablePath(pointer: string, extra?: string): string {
  const segments = pointer === '' ? [] : pointer.slice(1).split('/');
  const keys = segments.map((raw) => raw.replaceAll('~1', '/').replaceAll('~0', '~'));
  return pathOf(extra === undefined ? keys : [...keys, extra]);
}

/** Keys from the root down, as a path a reader finds in the file. */
export function pathOf(keys: readonly string[]): string {
  let out = '';
  for (const key of keys) {
    if (/^\d+$/.test(key)) out += `[${key}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(key.slice(0, 120))}]`;
  }
  return out === '' ? '(the file)' : out;
}

function describe(error: ErrorObject): FileProblem {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return {
        path: readablePath(error.instancePath, String(params.additionalProperty)),
        message: 'is not a setting the relay knows',
      };
    case 'required':
      return { path: readablePath(error.instancePath, String(params.missingProperty)), message: 'is required' };
    case 'propertyNames':
      return {
        path: readablePath(error.instancePath, String(params.propertyName)),
        message: 'is not a DSN (http(s)://<key>@<host>/<project id>, at most 512 characters)',
      };
    case 'pattern':
    case 'maxLength':
    case 'minLength':
      // The pattern's regex means nothing to a reader: say what the value is.
      return { path: readablePath(error.instancePath), message: valueMessage(error) };
    default:
      return { path: readablePath(error.instancePath), message: error.message ?? error.keyword };
  }
}

function valueMessage(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'maxLength') return `is longer than ${params.limit} characters`;
  if (error.keyword === 'minLength') return 'must not be empty';
  if (error.instancePath.includes('/origins/')) {
    return 'must be an origin: http(s)://host[:port], without a path, wildcard or trailing slash';
  }
  return 'must not contain control characters';
}
