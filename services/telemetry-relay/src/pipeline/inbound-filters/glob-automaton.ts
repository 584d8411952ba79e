// A set of globs (glob.ts's syntax and meaning) matched by simulating its automaton over the text: time linear in
// the text, for globs whose regex V8 would backtrack on (two `*` with text between them: `*a*b*` is quadratic, each
// further `*` one more power; decision 045). Case-insensitive as the regex's `i` without `u` is.

/** One code unit's test, or `*`, or `{…,…}`. */
type Piece = { test: (c: number) => boolean } | 'star' | { options: Piece[][] };

/** The `i` flag's Canonicalize without `u` (ECMA-262 22.2.2.7.3): upper case, unless that leaves ASCII or one unit. */
function canonicalOf(c: number): number {
  const upper = String.fromCharCode(c).toUpperCase();
  if (upper.length !== 1) return c;
  const u = upper.charCodeAt(0);
  return c >= 128 && u < 128 ? c : u;
}
/** canonicalOf, remembered per code unit (plus one; 0: not yet known). */
const CANONICAL = new Uint16Array(0x10000);
const canonical = (c: number): number => {
  let known = CANONICAL[c] as number;
  if (known === 0) {
    known = canonicalOf(c) + 1;
    if (known <= 0xffff) CANONICAL[c] = known;
  }
  return known - 1;
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
  // Each state's closure: the states it stands for without reading (forks opened, a `*` also skipped).
  const closure = (from: readonly number[]): number[] => {
    const out = new Set<number>();
    const visit = (s: number) => {
      const state = states[s] as State;
      if ('fork' in state) for (const t of state.fork) visit(t);
      else if (!out.has(s)) {
        out.add(s);
        if ('star' in state) visit(state.next);
      }
    };
    for (const s of from) visit(s);
    return [...out];
  };
  const closures = states.map((_, s) => closure([s]));
  const afterReading = states.map((state) => ('next' in state ? closures[state.next] : undefined));
  const first = closure(starts);
  // Flat arrays for the loop below: 0 end, 1 a test, 2 a `*` (forks never appear in a closure).
  const kind = Int8Array.from(states, (state) => ('test' in state ? 1 : 'star' in state ? 2 : 0));
  const tests = states.map((state) => ('test' in state ? state.test : undefined));
  /** The states after reading `c` in each of `from` (sorted, so that equal sets have equal keys). */
  const step = (from: Int32Array, c: number): Int32Array => {
    const next = new Set<number>();
    for (const s of from) {
      const to =
        kind[s] === 2
          ? closures[s]
          : kind[s] === 1 && (tests[s] as (c: number) => boolean)(c)
            ? afterReading[s]
            : undefined;
      if (to) for (const t of to) next.add(t);
    }
    return Int32Array.from(next).sort();
  };
  // The sets met so far, each with its moves by ASCII code (-1: not yet known) and by other code units: a lazily
  // built DFA, one lookup a character. Past MAX_SETS new sets are stepped without being kept (still linear).
  interface DfaState {
    set: Int32Array;
    accepts: boolean;
    ascii: Int32Array;
    other: Map<number, number>;
  }
  const dfa: DfaState[] = [];
  const known = new Map<string, number>();
  const MAX_SETS = 4096;
  const intern = (set: Int32Array): DfaState | number => {
    const key = set.join(',');
    const found = known.get(key);
    if (found !== undefined) return found;
    const state = {
      set,
      accepts: set.some((s) => kind[s] === 0),
      ascii: new Int32Array(128).fill(-1),
      other: new Map(),
    };
    if (dfa.length >= MAX_SETS) return state;
    dfa.push(state);
    known.set(key, dfa.length - 1);
    return dfa.length - 1;
  };
  const start = intern(Int32Array.from(first).sort());
  return (text) => {
    let current: DfaState | number = start;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (typeof current === 'number') {
        const state = dfa[current] as DfaState;
        const cached = c < 128 ? (state.ascii[c] as number) : (state.other.get(c) ?? -1);
        if (cached >= 0) {
          current = cached;
          continue;
        }
        const next = intern(step(state.set, c));
        if (typeof next === 'number') {
          if (c < 128) state.ascii[c] = next;
          else state.other.set(c, next);
        }
        current = next;
      } else current = intern(step(current.set, c));
      if ((typeof current === 'number' ? (dfa[current] as DfaState) : current).set.length === 0) return false;
    }
    return (typeof current === 'number' ? (dfa[current] as DfaState) : current).accepts;
  };
}
