// The sampled byte scan for the prescan's key words and the other stages' words (pipeline/item-scan.ts): it reads
// a third of the bytes (for the default words) where regular expressions read all (docs/decisions/021, 028). Every
// word is 3+ bytes, so a sample every (shortest length - 1) bytes lands inside each occurrence, and a word is
// compared only around a sample whose pair of bytes it holds. It answers as `/word1|word2…/i` on the latin1 decode
// (test/prescan.test.ts), or as `includes` for an exact word (test/item-scan.test.ts).

/** ASCII lower-cased, as the regexes' `i` flag compares an ASCII word; 0 beyond ASCII (never in a word). */
const FOLD = new Uint8Array(256);
for (let c = 0; c < 128; c++) FOLD[c] = c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
/**
 * A word's folded bytes, the offset in it of the pair it is filed under, its exact bytes when its case matters, and
 * the bit the scan sets when it occurs.
 */
type Entry = { offset: number; word: Uint8Array; exact: Uint8Array | undefined; bit: number };

/** Words by a pair of folded bytes (`first << 7 | second`), how far apart the scan samples, every word's bit. */
export interface WordTable {
  stride: number;
  pairs: Array<Entry[] | undefined>;
  all: number;
}

/** A word for a table: `bit` names its group (1 unless given); `exact` words match in their own case only. */
export interface TableWord {
  text: string;
  bit?: number;
  exact?: boolean;
}

/** Whether a table can hold `word` (printable ASCII, 3+ characters); the caller matches the others as before. */
export const tableable = (word: string) => word.length >= 3 && /^[\x20-\x7e]+$/.test(word);

/**
 * What a browser or Node event is mostly made of (keys, URLs, stack frames, SDK names): a word is filed under the
 * pairs least seen here, so an ordinary event offers few false candidates. Only speed depends on it.
 */
const TYPICAL = `{"event_id":"","timestamp":,"platform":"javascript","level":"error","environment":"production",
"release":"","exception":{"values":[{"type":"TypeError","value":"Cannot read properties of undefined (reading)",
"stacktrace":{"frames":[{"filename":"https://shop.example.com/assets/chunk.js","abs_path":"","function":"handle",
"module":"node:internal/process/task_queues","in_app":true,"lineno":,"colno":,"context_line":"","pre_context":[]}]},
"mechanism":{"type":"auto.browser.global_handlers.onerror","handled":false}}]},"breadcrumbs":[{"category":
"ui.click","message":"button#add-to-cart","data":{"from":"/items/","to":"/items/"}},{"category":"navigation"}],
"request":{"url":"https://","method":"GET","headers":{"User-Agent":"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/
(KHTML, like Gecko) Chrome/ Safari/","Referer":"https://","Accept":"text/html,application/json"}},"contexts":{
"trace":{"trace_id":"","span_id":"","op":"pageload","status":"ok"},"browser":{"name":"Chrome","version":""},"os":
{"name":"Linux"},"runtime":{"name":"node"}},"tags":{"route":"/items/:id","locale":"en-GB"},"user":{"ip_address":
"{{auto}}"},"sdk":{"name":"sentry.javascript.react","version":"","integrations":["InboundFilters",
"FunctionToString","BrowserApiErrors","Breadcrumbs","GlobalHandlers","LinkedErrors","Dedupe","HttpContext",
"BrowserSession","BrowserTracing"],"packages":[{"name":"npm:@sentry/react"}]},"spans":[{"description":"GET /api",
"start_timestamp":,"parent_span_id":"","origin":"auto.http.otel"}],"transaction":"/checkout"}`.toLowerCase();
const seen = new Map<string, number>();
for (let i = 0; i + 1 < TYPICAL.length; i++)
  seen.set(TYPICAL.slice(i, i + 2), (seen.get(TYPICAL.slice(i, i + 2)) ?? 0) + 1);

/**
 * A word of length L holds L - 1 pair positions in a row, so sampling every (shortest L) - 1 positions meets one
 * of any (stride) of its pairs in a row: each word is filed under the run of pairs least seen in TYPICAL.
 * `words` must all be tableable, and not empty.
 */
export function wordTable(words: readonly (string | TableWord)[]): WordTable {
  const specs = words.map((word) => (typeof word === 'string' ? { text: word } : word));
  const stride = Math.min(...specs.map((word) => word.text.length)) - 1;
  const pairs: Array<Entry[] | undefined> = new Array(128 * 128).fill(undefined);
  let all = 0;
  for (const { text, bit = 1, exact } of specs) {
    all |= bit;
    const raw = Buffer.from(text, 'latin1');
    const word = Uint8Array.from(raw, (c) => FOLD[c] as number);
    const cost = (from: number) => {
      let sum = 0;
      for (let k = from; k < from + stride; k++)
        sum += seen.get(String.fromCharCode(word[k] as number, word[k + 1] as number)) ?? 0;
      return sum;
    };
    let first = 0;
    for (let from = 1; from + stride < word.length; from++) if (cost(from) < cost(first)) first = from;
    for (let offset = first; offset < first + stride; offset++) {
      const index = ((word[offset] as number) << 7) | (word[offset + 1] as number);
      pairs[index] = [...(pairs[index] ?? []), { offset, word, exact: exact ? Uint8Array.from(raw) : undefined, bit }];
    }
  }
  return { stride, pairs, all };
}

/** Whether one of the table's words occurs in `b` in any ASCII case (as a regex with the `i` flag on latin1). */
export function hasWord(b: Uint8Array, table: WordTable): boolean {
  return foundWords(b, table) !== 0;
}

/**
 * The bits of the words that occur in `b` (an exact word in its own case, the others in any ASCII case), in one
 * pass that ends once every bit is set: several stages' words share it (pipeline/item-scan.ts).
 */
export function foundWords(b: Uint8Array, table: WordTable): number {
  // Plain indexed loops and locals: measured 5.6 µs against 7.4 with for…of and a helper per candidate.
  const { stride, pairs, all } = table;
  const fold = FOLD;
  const n = b.length;
  let found = 0;
  for (let i = stride - 1; i + 1 < n; i += stride) {
    const entries = pairs[((fold[b[i] as number] as number) << 7) | (fold[b[i + 1] as number] as number)];
    if (entries === undefined) continue;
    for (let e = 0; e < entries.length; e++) {
      const { offset, word, exact, bit } = entries[e] as Entry;
      const start = i - offset;
      if ((found & bit) !== 0 || start < 0 || start + word.length > n) continue;
      let j = 0;
      while (j < word.length && fold[b[start + j] as number] === word[j]) j++;
      if (j < word.length) continue;
      if (exact !== undefined) {
        j = 0;
        while (j < exact.length && b[start + j] === exact[j]) j++;
        if (j < exact.length) continue;
      }
      found |= bit;
      if (found === all) return found;
    }
  }
  return found;
}
