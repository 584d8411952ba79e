// How the shop shows a price.

/** Prices are stored in cents; shown in euros. Its own module so views do not pull in the catalog's JSON. */
export function formatPrice(cents: number): string {
  return `€${(cents / 100).toFixed(2)}`;
}
