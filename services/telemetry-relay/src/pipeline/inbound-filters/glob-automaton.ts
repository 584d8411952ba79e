// A set of globs (glob.ts's syntax and meaning) matched by simulating its automaton over the text: time linear in
// the text, for globs whose regex V8 would backtrack on (two `*` with text between them: `*a*b*` is quadratic, each
// further `*` one more power; decision 045). Case-insensitive as the regex's `i` without `u` is.

/** One code unit's test, or `*`, or `{…,…}`. */
type Piece = { test: (c: number) => boolean } | 'star' | { options: Piece[][] };

/** The `i` flag's Canonicalize without `u` (ECMA-262 22.2.2.7.3): upper case, unless that leaves ASCII or one unit. */
const canonical = (c: number): number => {
  const char = String.fromCharCode(c);
  const upper = char.toUpperCase();
  if (upper.length !== 1) return c;
  const u = upper.charCodeAt(0);
  return c >= 128 && u < 128 ? c : u;
};

const literal = (char: string) => {
  const want = canonical(char.charCodeAt(0));
  return { test: (c: number) => c === char.charCodeAt(0) || canonical(c) === want };
};

/** glob.ts's reading of a glob, piece by piece (an unclosed `{` closes at the end). */
export function parseGlob(glob: string): Piece[] {
  const root: Piece[] = [];
  const open: Array<{ options: Piece[][]; parent: Piece[] }> = [];
  let current = root;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    const group = open[open.length - 1];
    if (char === '\\' && i + 1 < glob.length) current.push(literal(glob[++i] as string));
    else if (char === '*') current.push('star');
    else if (char === '?') current.push({ test: () => true });
    else if (char === '{') {
      const alternatives = { options: [[]] as Piece[][] };
      current.push(alternatives);
      open.push({ options: alternatives.options, parent: current });
      current = alternatives.options[0] as Piece[];
    } else if (char === '}' && group) {
      open.pop();
      current = group.parent;
    } else if (char === ',' && group) {
      current = [];
      group.options.push(current);
    } else if (char === '[' && glob.indexOf(']', i + 2) !== -1) {
      const end = glob.indexOf(']', i + 2);
      const body = glob.slice(i + 1, end);
      const negated = body.startsWith('!');
      const one = new RegExp(
        `^[${negated ? '^' : ''}${(negated ? body.slice(1) : body).replace(/[\\\]^]/g, '\\$&')}]$`,
        'i',
      );
      const seen = new Map<number, boolean>();
      current.push({
        test: (c) => {
          const known = seen.get(c);
          if (known !== undefined) return known;
          const yes = one.test(String.fromCharCode(c));
          seen.set(c, yes);
          return yes;
        },
      });
      i = end;
    } else current.push(literal(char));
  }
  return root;
}

/** Automaton states: a code unit's test then `next`, a `*` loop, a fork, or the end. */
type State =
  | { test: (c: number) => boolean; next: number }
  | { star: true; next: number }
  | { fork: number[] }
  | { end: true };

function compile(pieces: readonly Piece[], states: State[], next: number): number {
  for (let i = pieces.length - 1; i >= 0; i--) {
    const piece = pieces[i] as Piece;
    if (piece === 'star') states.push({ star: true, next });
    else if ('test' in piece) states.push({ test: piece.test, next });
    else {
      const starts = piece.options.map((option) => compile(option, states, next));
      states.push({ fork: starts });
    }
    next = states.length - 1;
  }
  return next;
}

/** Whether any of `globs` matches the whole of a text. */
export function globAutomaton(globs: readonly string[]): (text: string) => boolean {
  const states: State[] = [{ end: true }];
  const starts = globs.map((glob) => compile(parseGlob(glob), states, 0));
  return (text) => {
    let mark = new Uint32Array(states.length);
    let generation = 1;
    let active: number[] = [];
    const add = (list: number[], s: number) => {
      if (mark[s] === generation) return;
      mark[s] = generation;
      const state = states[s] as State;
      if ('fork' in state) for (const t of state.fork) add(list, t);
      else {
        list.push(s);
        if ('star' in state) add(list, state.next);
      }
    };
    for (const s of starts) add(active, s);
    for (let i = 0; i < text.length && active.length > 0; i++) {
      const c = text.charCodeAt(i);
      const following: number[] = [];
      generation++;
      if (generation === 0xffffffff) {
        mark = new Uint32Array(states.length);
        generation = 1;
      }
      for (const s of active) {
        const state = states[s] as State;
        if ('star' in state) add(following, s);
        else if ('test' in state && state.test(c)) add(following, state.next);
      }
      active = following;
    }
    return active.some((s) => 'end' in (states[s] as State));
  };
}
