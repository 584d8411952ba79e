// Which clicks on a list's plain links navigate on the client: the ones React Router's <Link> would take over.
import { describe, expect, it } from 'vitest';
import { isClientNavigation } from '../../src/framework/shared/list-links.ts';

const ORIGIN = 'https://shop.test';
const click = { defaultPrevented: false, button: 0, metaKey: false, altKey: false, ctrlKey: false, shiftKey: false };
const link = (attributes: { target?: string; origin?: string; download?: boolean } = {}) => ({
  target: attributes.target ?? '',
  origin: attributes.origin ?? ORIGIN,
  hasAttribute: (name: string) => name === 'download' && attributes.download === true,
});

describe('isClientNavigation', () => {
  it.each([
    ['a plain primary click', click, link(), true],
    ['target _self', click, link({ target: '_self' }), true],
    ['a click a handler already took', { ...click, defaultPrevented: true }, link(), false],
    ['the middle button', { ...click, button: 1 }, link(), false],
    ['with Ctrl (a new tab)', { ...click, ctrlKey: true }, link(), false],
    ['with Meta', { ...click, metaKey: true }, link(), false],
    ['with Shift (a new window)', { ...click, shiftKey: true }, link(), false],
    ['with Alt (download)', { ...click, altKey: true }, link(), false],
    ['target _blank', click, link({ target: '_blank' }), false],
    ['a download link', click, link({ download: true }), false],
    ['another origin', click, link({ origin: 'https://elsewhere.test' }), false],
  ])('%s: %s', (_name, event, anchor, expected) => {
    expect(isClientNavigation(event, anchor, ORIGIN)).toBe(expected);
  });
});
