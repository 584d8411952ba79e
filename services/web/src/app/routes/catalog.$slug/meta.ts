// The item page's head metadata.
import type { CatalogItemData } from '../../catalog/catalog.ts';

export const title = ({ item }: CatalogItemData) => `${item.name} · Example Store`;
export const description = ({ item }: CatalogItemData) => `${item.name}: ${item.description}`.slice(0, 160);
