// The hostile-key generators put each key where they say, as an own member of the parsed JSON, at every object.
import { describe, expect, it } from 'vitest';
import {
  fillSlots,
  hostileEnvelopes,
  hostileJson,
  hostileSecurityReports,
  ITEM_TEMPLATES,
  KEY_SLOT,
  objectPaths,
  POISONS,
  PROTOTYPE_KEYS,
  withMember,
} from '../src/hostile-keys.ts';

const at = (value: unknown, path: ReadonlyArray<string | number>): unknown =>
  path.reduce<unknown>((node, part) => (node as Record<string | number, unknown>)[part], value);

describe('withMember', () => {
  it.each(PROTOTYPE_KEYS)('writes "%s" as an own member, the prototype untouched', (key) => {
    const parsed = JSON.parse(withMember({ a: { b: 1 } }, ['a'], key, '{"x":1}')) as { a: object };
    expect(Object.hasOwn(parsed.a, key)).toBe(true);
    expect(Object.getPrototypeOf(parsed.a)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(parsed.a, key)?.value).toEqual({ x: 1 });
  });

  it('leaves the JSON as JSON.stringify writes it when the path names no object', () => {
    const value = { a: [{ b: 'c' }], d: null };
    expect(withMember(value, ['nowhere'], 'k', '1')).toBe(JSON.stringify(value));
  });
});

describe('hostileJson', () => {
  const template = { a: { b: [{ c: 1 }, 2] }, s: `x=${KEY_SLOT}` };

  it('finds every object, the root and those inside arrays', () => {
    expect(objectPaths(template)).toEqual([[], ['a'], ['a', 'b', 0]]);
  });

  it('gives each key at each object under each poison, and once in the strings', () => {
    const variants = hostileJson(template);
    const poisons = Object.keys(POISONS).length;
    expect(variants).toHaveLength(PROTOTYPE_KEYS.length * (3 * poisons + 1));
    for (const variant of variants) {
      const parsed: unknown = JSON.parse(variant.json);
      const path = /at (\S+) \(/.exec(variant.name)?.[1];
      if (path === undefined) {
        expect(at(parsed, ['s'])).toBe(`x=${variant.key}`);
        continue;
      }
      const holder = at(parsed, path === '(root)' ? [] : path.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)));
      expect(Object.hasOwn(holder as object, variant.key), variant.name).toBe(true);
      expect(at(parsed, ['s'])).toBe('x=name');
    }
  });
});

describe('the request sets', () => {
  const dsn = 'http://abc@127.0.0.1:9/42';

  it('cover the envelope header, attachment headers and every item type, header and payload', () => {
    const groups = new Set(hostileEnvelopes(dsn).map((r) => r.name.slice(0, r.name.indexOf(':'))));
    expect(groups).toContain('envelope header');
    expect(groups).toContain('attachment header');
    for (const { header } of ITEM_TEMPLATES) {
      expect(groups).toContain(`${header.type} item header`);
      expect(groups).toContain(`${header.type} payload`);
    }
  });

  it('give each envelope its own event id in a header line that parses', () => {
    const envelopes = hostileEnvelopes(dsn, 'be');
    const ids = envelopes.map((r) => {
      const header = r.body.subarray(0, r.body.indexOf(10)).toString();
      const id = header.match(/"event_id":"([0-9a-f]{32})"/)?.[1];
      expect(JSON.parse(header)).toBeTypeOf('object');
      expect(id).toBe(r.eventId);
      return id;
    });
    expect(new Set(ids).size).toBe(envelopes.length);
    expect(ids.every((id) => id?.startsWith('be'))).toBe(true);
  });

  it('send CSP reports of both kinds, each body JSON with the key in it', () => {
    const reports = hostileSecurityReports();
    expect(new Set(reports.map((r) => r.contentType))).toEqual(
      new Set(['application/csp-report', 'application/reports+json']),
    );
    for (const report of reports) {
      expect(() => JSON.parse(report.body.toString())).not.toThrow();
      expect(report.body.toString()).toContain(report.key);
    }
  });

  it('fill template slots with a harmless name outside the `in strings` variants', () => {
    expect(fillSlots({ a: [`${KEY_SLOT}=1`] }, 'name')).toEqual({ a: ['name=1'] });
  });
});
