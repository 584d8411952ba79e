// Relay's glob patterns (relay-common glob3 / relay-pattern, as its filters and rule conditions use them): the whole
// value must match, case-insensitively; `*` is any run of characters (a `/` too), `?` one character, `{a,b}` one of
// the alternatives, `[…]` / `[!…]` a character class, `\` takes the next character literally.

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
