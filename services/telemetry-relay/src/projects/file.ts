// Reading PROJECTS_FILE: JSON, or YAML by its extension (.yaml/.yml), then its projects (document.ts). Synchronous:
// it runs once at startup and on a reload, a few kilobytes, and a reload must see one version of the file.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { type DocumentOptions, projectsFromDocument } from './document.ts';
import type { ProjectSettings } from './project.ts';
import type { FileProblem } from './schema.ts';

/** Larger is not a projects file (1000 projects of a few hundred bytes): refused before parsing. */
export const MAX_PROJECTS_FILE_BYTES = 4 * 1024 * 1024;

export interface LoadedProjects {
  projects: ProjectSettings[];
  /** SHA-256 of the file's bytes, hex: which version is loaded (the relay_projects_file_info metric). */
  sha256: string;
}

export type ProjectsFileResult = LoadedProjects | { problems: FileProblem[] };

export function readProjectsFile(path: string, options: DocumentOptions = {}): ProjectsFileResult {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    return { problems: [{ path: '(the file)', message: `cannot be read: ${(error as Error).message}` }] };
  }
  if (bytes.length > MAX_PROJECTS_FILE_BYTES) {
    return {
      problems: [{ path: '(the file)', message: `has ${bytes.length} bytes; at most ${MAX_PROJECTS_FILE_BYTES}` }],
    };
  }
  let document: unknown;
  const text = bytes.toString('utf8');
  try {
    document = /\.ya?ml$/i.test(path) ? parseYaml(text, { maxAliasCount: 100 }) : JSON.parse(text);
  } catch (error) {
    return {
      problems: [
        {
          path: '(the file)',
          message: `is not ${/\.ya?ml$/i.test(path) ? 'YAML' : 'JSON'}: ${(error as Error).message}`,
        },
      ],
    };
  }
  const result = projectsFromDocument(document, options);
  if (result.problems) return result;
  return { projects: result.projects, sha256: createHash('sha256').update(bytes).digest('hex') };
}
