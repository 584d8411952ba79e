import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageMetaOf } from '../src/framework/page-meta.ts';
import { testApp } from './helpers.ts';

let app: FastifyInstance;
beforeAll(async () => {
  ({ app } = await testApp());
});
afterAll(() => app.close());

const headOf = async (url: string) => {
  const res = await app.inject({ url, headers: { host: 'shop.test' } });
  return res.body.slice(0, res.body.indexOf('</head>'));
};
const content = (head: string, attribute: string, name: string) =>
  new RegExp(`<meta ${attribute}="${name}" content="([^"]*)">`).exec(head)?.[1];

describe('head metadata of a document, from the route table', () => {
  it.each([
    ['/', 'Home · Example Store', 'Browse the Example Store catalog and set your display preferences.'],
    ['/catalog?page=2', 'Catalog, page 2 · Example Store', 'All 120 items of the Example Store catalog, page 2 of 6.'],
    ['/catalog/amber-lamp', 'Amber Lamp · Example Store', undefined],
    [
      '/preferences',
      'Preferences · Example Store',
      'Choose your display name, theme and catalog page size at the Example Store.',
    ],
  ])('%s: title, description, canonical URL, lang and Open Graph', async (url, title, description) => {
    const head = await headOf(url);
    const path = url.split('?')[0];
    expect(head).toMatch(/^<!DOCTYPE html><html lang="en">/);
    expect(head).toContain(`<title>${title}</title>`);
    expect(head).toContain(`<link rel="canonical" href="http://shop.test${path}">`);
    expect(content(head, 'property', 'og:title')).toBe(title);
    expect(content(head, 'property', 'og:url')).toBe(`http://shop.test${path}`);
    expect(content(head, 'property', 'og:type')).toBe('website');
    expect(content(head, 'property', 'og:site_name')).toBe('Example Store');
    const found = content(head, 'name', 'description');
    expect(found).toMatch(/\S/);
    if (description) expect(found).toBe(description);
    expect(content(head, 'property', 'og:description')).toBe(found);
  });

  it('escapes a description made from the request', async () => {
    const head = await headOf('/catalog?q=%22%3E%3Cscript%3E');
    expect(content(head, 'name', 'description')).toBe(
      '0 catalog items matching “&#34;&#62;&#60;script&#62;” at the Example Store.',
    );
    expect(head).not.toContain('"><script>');
  });

  it('gives an error page its title and no description', async () => {
    const head = await headOf('/no/such/page');
    expect(head).toContain('<title>Page not found</title>');
    expect(head).not.toContain('name="description"');
    expect(head).toContain('<link rel="canonical" href="http://shop.test/no/such/page">');
  });
});

describe('pageMetaOf', () => {
  const at = (handle: object, loaderData?: unknown) => ({ handle, loaderData });
  const options = { appName: 'App', origin: 'https://shop.example', pathname: '/a/b' };
  it.each([
    ['no handles', [at({})], { title: 'App', description: undefined, lang: 'en' }],
    [
      'the deepest route wins',
      [at({ title: () => 'Outer', description: () => 'outer', lang: 'fr' }), at({ title: (d: string) => d }, 'Inner')],
      { title: 'Inner', description: 'outer', lang: 'fr' },
    ],
    [
      'a route without loader data passes to the next one up',
      [at({ description: () => 'outer' }, {}), at({ description: (d: string) => d })],
      { title: 'App', description: 'outer', lang: 'en' },
    ],
    [
      'a deeper lang wins',
      [at({ lang: 'fr' }), at({ lang: 'de' })],
      { title: 'App', description: undefined, lang: 'de' },
    ],
  ])('%s', (_name, matches, expected) => {
    expect(pageMetaOf(matches, options)).toEqual({ ...expected, canonical: 'https://shop.example/a/b' });
  });
});
