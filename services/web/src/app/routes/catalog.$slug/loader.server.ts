// The item page's loader: the item, a moved item's redirect, or a 404.
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoaderFunctionArgs } from 'react-router';
import { type CatalogItemData, findItem, movedTo, relatedItems } from '../../catalog/catalog.ts';
import { routeSettings } from '../../settings.ts';
import { notFound, redirect } from '../../signals.ts';

/**
 * The item at once; its related items as a promise that takes `relatedDelayMs` (standing in for a slower service),
 * not awaited, so the page streams: the shell with the item first, the related items when they are ready.
 */
export function loader({ params, request, context }: LoaderFunctionArgs): CatalogItemData {
  const slug = params.slug ?? '';
  const item = findItem(slug);
  if (item) {
    const delay = context.get(routeSettings).relatedDelayMs;
    const related = sleep(delay, undefined, { signal: request.signal }).then(() => relatedItems(item));
    return { item, related };
  }
  const target = movedTo(slug);
  if (target) throw redirect(`/catalog/${target}`, 301);
  notFound();
}
