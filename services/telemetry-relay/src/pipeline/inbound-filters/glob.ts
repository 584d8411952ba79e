// Relay's glob patterns (relay-common glob3 / relay-pattern, as its filters and rule conditions use them): the whole
// value must match, case-insensitively; `*` is any run of characters (a `/` too), `?` one character, `{a,b}` one of
// the alternatives, `[…]` / `[!…]` a character class, `\` takes the next character literally.
import { globAutomaton, parseGlob } from './glob-automaton.ts';

const SPECIAL = /[.*+?^${}()|[\]\\/]/g;
const literal = (char: string) => char.replace(SPECIAL, '\\$&');

/** The RegExp source of one glob (without anchors). */
function globSource(glob: string): string {
  let out = '';
  let alternatives = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === '\\' && i + 1 < glob.length) out += literal(glob[++i] as string);
    else if (char === '*') out += '[\\s\\S]*';
    else if (char === '?') out += '[\\s\\S]';
    else if (char === '{') {
      alternatives++;
      out += '(?:';
    } else if (char === '}' && alternatives > 0) {
      alternatives--;
      out += ')';
    } else if (char === ',' && alternatives > 0) out += '|';
    else if (char === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) out += '\\[';
      else {
        const body = glob.slice(i + 1, end);
        const negated = body.startsWith('!');
        out += `[${negated ? '^' : ''}${(negated ? body.slice(1) : body).replace(/[\\\]^]/g, '\\$&')}]`;
        i = end;
      }
    } else out += literal(char);
  }
  return out + ')'.repeat(alternatives);
}

/** One RegExp matching a value that any of `globs` matches. */
export function globsToRegExp(globs: readonly string[]): RegExp {
  if (globs.length === 0) return /(?!)/;
  return new RegExp(`^(?:${globs.map(globSource).join('|')})$`, 'i');
}

/**
 * Whether V8 runs a glob's regex in time linear in the text: at most one `*`, or two that open and close it (`*x*`),
 * none inside braces. Anything else backtracks once per `*` into every split of the text (decision 045).
 */
export function linearAsRegExp(glob: string): boolean {
  const pieces = parseGlob(glob);
  const nested = pieces.some((piece) => typeof piece === 'object' && 'options' in piece && hasStar(piece.options));
  const stars = pieces.flatMap((piece, i) => (piece === 'star' ? [i] : []));
  if (nested) return false;
  return stars.length <= 1 || (stars.length === 2 && stars[0] === 0 && stars[1] === pieces.length - 1);
}

type Pieces = ReturnType<typeof parseGlob>;
const hasStar = (options: readonly Pieces[]): boolean =>
  options.some((option) =>
    option.some(
      (piece) => piece === 'star' || (typeof piece === 'object' && 'options' in piece && hasStar(piece.options)),
    ),
  );

/** A test of whether any of `globs` matches a whole value, in time linear in the value: a RegExp where that is. */
export function compileGlobs(globs: readonly string[]): { test(text: string): boolean } {
  const linear = globs.filter(linearAsRegExp);
  const others = globs.filter((glob) => !linearAsRegExp(glob));
  if (others.length === 0) return globsToRegExp(linear);
  const regex = linear.length > 0 ? globsToRegExp(linear) : undefined;
  const automaton = globAutomaton(others);
  return { test: (text) => regex?.test(text) === true || automaton(text) };
}
