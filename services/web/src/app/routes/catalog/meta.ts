// The catalog list's head metadata: its search and page.
import type { CatalogPage } from '../../catalog/catalog.ts';

export const title = (page: CatalogPage) =>
  page.query ? `“${page.query}” · Catalog · Example Store` : `Catalog, page ${page.page} · Example Store`;
export const description = (page: CatalogPage) =>
  page.query
    ? `${page.total} catalog items matching “${page.query}” at the Example Store.`
    : `All ${page.total} items of the Example Store catalog, page ${page.page} of ${page.pageCount}.`;
