// The loader of the catch-all route: any unknown URL answers 404.
import { notFound } from '../../signals.ts';

/** Any unknown URL: the same 404 view, inside the layout. */
export function loader(): never {
  notFound();
}
