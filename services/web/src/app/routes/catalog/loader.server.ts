// The catalog list's loader: a page of search results, as many per page as the visitor's preferences say.
import type { LoaderFunctionArgs } from 'react-router';
import { type CatalogPage, MAX_PAGE_SIZE, MAX_QUERY_LENGTH, searchCatalog } from '../../catalog/catalog.ts';
import { readPreferences } from '../../preferences/preferences.server.ts';

function positiveInt(value: string | null, fallback: number, max: number): number {
  const n = value === null ? Number.NaN : Number(value);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, max) : fallback;
}

export function loader({ request, url }: LoaderFunctionArgs): CatalogPage {
  const preferences = readPreferences(request);
  const limit = positiveInt(url.searchParams.get('limit'), preferences.pageSize, MAX_PAGE_SIZE);
  const page = positiveInt(url.searchParams.get('page'), 1, 10_000);
  // The query is echoed (title, description, the search box): bounded before it is read.
  return searchCatalog((url.searchParams.get('q') ?? '').slice(0, MAX_QUERY_LENGTH), page, limit);
}
