import { Link, useLoaderData } from 'react-router';
import type { CatalogItem } from './catalog.ts';
import { formatPrice } from './format.ts';

export function Component() {
  const item = useLoaderData() as CatalogItem;
  return (
    <article>
      <p>
        <Link to="/catalog">Back to the catalog</Link>
      </p>
      <h1>{item.name}</h1>
      <p className="price">{formatPrice(item.priceCents)}</p>
      <p>{item.inStock ? 'In stock' : 'Out of stock'}</p>
      <p>{item.description}</p>
    </article>
  );
}

export const title = (item: CatalogItem) => `${item.name} · Example Store`;
export const description = (item: CatalogItem) => `${item.name}: ${item.description}`.slice(0, 160);
