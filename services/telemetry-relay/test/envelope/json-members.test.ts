// Duplicate keys found by counting (src/envelope/json-members.ts): members as written against the keys JSON.parse
// kept, on texts that put colons, quotes and backslashes where a count could go wrong.
import { describe, expect, it } from 'vitest';
import { hasDuplicateKeys, memberCount } from '../../src/envelope/json-members.ts';

describe('duplicate keys in a JSON text', () => {
  // A table of cases, alike in shape to other functions' tables on purpose (`duplicates` pairs them).
  it.each([
    ['no object', '[1,"a:b",true]', 0, false],
    ['one member', '{"a":1}', 1, false],
    ['a key given twice', '{"password":"s3cret","password":""}', 2, true],
    ['the same key in two objects', '{"a":{"a":1},"b":[{"a":2},{"a":3}]}', 5, false],
    ['a key given twice, deep in an array', '{"a":[{"b":1,"c":{"d":1,"d":2}}]}', 5, true],
    ['the same key spelled two ways', '{"a":1,"\\u0061":2}', 2, true],
    ['colons and quotes inside strings', '{"k:\\"":"v\\":\\\\","w":"x:y"}', 2, false],
    ['a string ending in a backslash', '{"a":"\\\\","b":":"}', 2, false],
    ['space around the colon', '{ "a" : 1 , "a" : 2 }', 2, true],
    ['__proto__ given twice', '{"__proto__":{"x":1},"__proto__":2}', 3, true],
    ['empty objects and keys', '{"":{},"":[]}', 2, true],
  ])('%s', (_name, text, members, duplicate) => {
    expect(memberCount(text)).toBe(members);
    expect(hasDuplicateKeys(text, JSON.parse(text))).toBe(duplicate);
  });
});
