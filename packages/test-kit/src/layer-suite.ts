// The layer test both services run, around their own table: every import runs down it, no import form is missed,
// and the table refuses the moves it names and allows the ones it names (layers.ts does the checking).
import { describe, expect, it } from 'vitest';
import { importStatementCount, importsOf, type Layer, layerViolations, sourceFiles } from './layers.ts';

export interface LayerSuite {
  /** The service's source folder. */
  src: string;
  layers: readonly Layer[];
  extensions?: readonly string[];
  /** [name, file, source]: one import each that the table must refuse. */
  refuses: ReadonlyArray<readonly [string, string, string]>;
  /** Files whose imports the table must allow. */
  allows: ReadonlyMap<string, string>;
  /** A service's own checks, inside the same describe. */
  also?: (sources: () => Map<string, string>) => void;
}

export function describeLayers({ src, layers, extensions, refuses, allows, also }: LayerSuite): void {
  const sources = () => sourceFiles(src, extensions);
  const violations = (files: ReadonlyMap<string, string>) => layerViolations(files, layers);
  describe('import layers', () => {
    it('every import in src/ runs down the layer table', () => {
      expect(violations(sources())).toEqual([]);
    });

    it('finds every import statement (so a missed form cannot hide a violation)', () => {
      for (const [file, source] of sources()) {
        expect(importsOf(source).length, file).toBeGreaterThanOrEqual(importStatementCount(source));
      }
    });

    also?.(sources);

    it.each(refuses)('refuses %s', (_name, file, source) => {
      expect(violations(new Map([[file, source]]))).toHaveLength(1);
    });

    it('allows imports down the table and within a layer', () => {
      expect(violations(allows)).toEqual([]);
    });
  });
}
