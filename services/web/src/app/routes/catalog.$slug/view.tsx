// One catalog item's page, its related items streamed in when they are ready.
import { Link, useLoaderData } from 'react-router';
import { Deferred } from '../../../framework/shared/deferred-view.tsx';
import type { CatalogItemData } from '../../catalog/catalog.ts';
import { formatPrice } from '../../catalog/format.ts';

export function Component() {
  const { item, related } = useLoaderData() as CatalogItemData;
  return (
    <article>
      <p>
        <Link to="/catalog">Back to the catalog</Link>
      </p>
      <h1>{item.name}</h1>
      <p className="price">{formatPrice(item.priceCents)}</p>
      <p>{item.inStock ? 'In stock' : 'Out of stock'}</p>
      <p>{item.description}</p>
      <section aria-labelledby="related-title">
        <h2 id="related-title">Related items</h2>
        <Deferred
          resolve={related}
          fallback={<p className="loading">Loading related items…</p>}
          failedText="Related items could not be loaded."
        >
          {(items) => (
            <ul className="related-list" data-testid="related-items">
              {items.map((other) => (
                <li key={other.id}>
                  <Link to={`/catalog/${other.slug}`}>{other.name}</Link>{' '}
                  <span className="price">{formatPrice(other.priceCents)}</span>
                </li>
              ))}
            </ul>
          )}
        </Deferred>
      </section>
    </article>
  );
}
