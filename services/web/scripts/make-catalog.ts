// Writes the example catalog (src/app/catalog/catalog.json): 20 adjectives × 6 kinds of thing, with prices and stock
// derived from the id so the file is the same on every run. `node scripts/make-catalog.ts` from services/web.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CatalogItem } from '../src/app/catalog/catalog.ts';

const ADJECTIVES = ['amber', 'brisk', 'cedar', 'dune', 'ember', 'fjord', 'granite', 'harbor', 'indigo', 'juniper'];
ADJECTIVES.push('kestrel', 'linen', 'meadow', 'nimbus', 'orchid', 'pebble', 'quartz', 'russet', 'saffron', 'tundra');
const KINDS = ['lamp', 'chair', 'kettle', 'notebook', 'backpack', 'mug'];
/** Old addresses the example redirects (the diagnostics page links the first). */
const MOVED = { 'old-amber-lamp': 'amber-lamp', 'amber-lantern': 'amber-lamp' };

/** "a" or "an" for the word that follows, by its first letter: every adjective above is spoken as it is spelt. */
export function indefiniteArticle(word: string): 'a' | 'an' {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

export function makeCatalog(): { items: CatalogItem[]; moved: Record<string, string> } {
  const items = KINDS.flatMap((kind, k) =>
    ADJECTIVES.map((adjective, a): CatalogItem => {
      const id = k * ADJECTIVES.length + a + 1;
      return {
        id,
        slug: `${adjective}-${kind}`,
        name: `${capitalized(adjective)} ${capitalized(kind)}`,
        category: kind,
        priceCents: 1000 + ((id * 7919) % 9000),
        inStock: id % 7 !== 0,
        description: `${capitalized(indefiniteArticle(adjective))} ${adjective} ${kind} made to last. Item ${id} of the example catalog.`,
      };
    }),
  );
  return { items, moved: MOVED };
}

export const catalogPath = fileURLToPath(new URL('../src/app/catalog/catalog.json', import.meta.url));
export const catalogText = () => `${JSON.stringify(makeCatalog(), null, 2)}\n`;

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(catalogPath, catalogText());
