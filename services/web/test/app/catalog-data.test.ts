// The example catalog's data: the committed file is what scripts/make-catalog.ts writes, and its copy reads as English
// ("an amber lamp", "a brisk lamp").
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catalogPath, catalogText, indefiniteArticle, makeCatalog } from '../../scripts/make-catalog.ts';
import { findItem } from '../../src/app/catalog/catalog.ts';

describe('indefiniteArticle', () => {
  // A table of cases, alike in shape to other functions' tables on purpose (`duplicates` pairs them).
  it.each([
    ['amber', 'an'],
    ['Ember', 'an'],
    ['indigo', 'an'],
    ['orchid', 'an'],
    ['umber', 'an'],
    ['brisk', 'a'],
    ['quartz', 'a'],
    ['tundra', 'a'],
  ])('%s takes "%s"', (word, article) => {
    expect(indefiniteArticle(word)).toBe(article);
  });
});

describe('the example catalog', () => {
  it('is exactly what the generator writes (edit scripts/make-catalog.ts, then run it)', () => {
    expect(readFileSync(catalogPath, 'utf8')).toBe(catalogText());
  });

  it('describes every item with the article its adjective takes', () => {
    for (const item of makeCatalog().items) {
      const [article, adjective] = item.description.split(' ') as [string, string];
      expect(article.toLowerCase(), item.description).toBe(indefiniteArticle(adjective));
    }
    expect(findItem('amber-lamp')?.description).toBe('An amber lamp made to last. Item 1 of the example catalog.');
    expect(findItem('brisk-lamp')?.description).toMatch(/^A brisk lamp /);
  });
});
