// The catalog's loaders: a page of search results and one item with its related items deferred.
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoaderFunctionArgs } from 'react-router';
import {
  type CatalogItemData,
  type CatalogPage,
  findItem,
  MAX_PAGE_SIZE,
  MAX_QUERY_LENGTH,
  movedTo,
  relatedItems,
  searchCatalog,
} from '../../catalog/catalog.ts';
import { readPreferences } from '../../preferences/preferences.server.ts';
import { notFound, redirect } from '../../signals.ts';

function positiveInt(value: string | null, fallback: number, max: number): number {
  const n = value === null ? Number.NaN : Number(value);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, max) : fallback;
}

export function catalogListLoader({ request, url }: LoaderFunctionArgs): CatalogPage {
  const preferences = readPreferences(request);
  const limit = positiveInt(url.searchParams.get('limit'), preferences.pageSize, MAX_PAGE_SIZE);
  const page = positiveInt(url.searchParams.get('page'), 1, 10_000);
  // The query is echoed (title, description, the search box): bounded before it is read.
  return searchCatalog((url.searchParams.get('q') ?? '').slice(0, MAX_QUERY_LENGTH), page, limit);
}

/**
 * The item at once; its related items as a promise that takes `relatedDelayMs` (standing in for a slower service),
 * not awaited, so the page streams: the shell with the item first, the related items when they are ready.
 */
export function createCatalogItemLoader(relatedDelayMs: number) {
  return ({ params, request }: LoaderFunctionArgs): CatalogItemData => {
    const slug = params.slug ?? '';
    const item = findItem(slug);
    if (item) {
      const related = sleep(relatedDelayMs, undefined, { signal: request.signal }).then(() => relatedItems(item));
      return { item, related };
    }
    const target = movedTo(slug);
    if (target) throw redirect(`/catalog/${target}`, 301);
    notFound();
  };
}
