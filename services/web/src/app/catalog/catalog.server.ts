import type { LoaderFunctionArgs } from 'react-router';
import { readPreferences } from '../preferences/preferences.server.ts';
import { notFound, redirect } from '../signals.ts';
import { type CatalogItem, type CatalogPage, findItem, MAX_PAGE_SIZE, movedTo, searchCatalog } from './catalog.ts';

function positiveInt(value: string | null, fallback: number, max: number): number {
  const n = value === null ? Number.NaN : Number(value);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, max) : fallback;
}

export function catalogListLoader({ request, url }: LoaderFunctionArgs): CatalogPage {
  const preferences = readPreferences(request);
  const limit = positiveInt(url.searchParams.get('limit'), preferences.pageSize, MAX_PAGE_SIZE);
  const page = positiveInt(url.searchParams.get('page'), 1, 10_000);
  return searchCatalog(url.searchParams.get('q') ?? '', page, limit);
}

export function catalogItemLoader({ params }: LoaderFunctionArgs): CatalogItem {
  const slug = params.slug ?? '';
  const item = findItem(slug);
  if (item) return item;
  const target = movedTo(slug);
  if (target) throw redirect(`/catalog/${target}`, 301);
  notFound();
}
