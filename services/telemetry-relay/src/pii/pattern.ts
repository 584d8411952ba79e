// How a rule searches a value: a regex that is linear on V8 as it is, or a hand-written matcher that finds exactly
// the spans a regex would where V8's backtracking would not be linear (matchers.ts, user-path.ts; decision 045).

/** What a rule searches a value with. */
export interface Pattern {
  /** The pattern's name in patterns.ts: the linear-cost test finds its worst input by it. */
  readonly name: string;
  /** Whether it matches anywhere in `text`. */
  test(text: string): boolean;
  /** The span of group `group` of each match, left to right (a global regex's matchAll with `d`). */
  spans(text: string, group: number): Array<[number, number]>;
}

/** A regex that runs in time linear in its input on V8 (test/pipeline/linear-cost.test.ts measures each). */
export function regexPattern(name: string, source: string, flags: string): Pattern {
  const regex = new RegExp(source, `gd${flags}`);
  return {
    name,
    test(text) {
      regex.lastIndex = 0;
      return regex.test(text);
    },
    spans(text, group) {
      const out: Array<[number, number]> = [];
      regex.lastIndex = 0; // matchAll starts where the last test() stopped
      for (const match of text.matchAll(regex)) {
        const span = match.indices?.[group];
        if (span) out.push([span[0], span[1]]);
      }
      return out;
    },
  };
}

/** The next match at or after `from`: its group's span and where the match ends. */
export type Find = (from: number) => [start: number, end: number, next: number] | undefined;

/** A hand-written matcher of one group (`group`), prepared once per text (`prepare`). */
export function scanner(name: string, group: number, prepare: (text: string) => Find): Pattern {
  return {
    name,
    test: (text) => prepare(text)(0) !== undefined,
    spans(text, wanted) {
      if (wanted !== group) throw new Error(`${name} finds group ${group} only`);
      const find = prepare(text);
      const out: Array<[number, number]> = [];
      for (let found = find(0); found; found = find(found[2])) out.push([found[0], found[1]]);
      return out;
    },
  };
}
