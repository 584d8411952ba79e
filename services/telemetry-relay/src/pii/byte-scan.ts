// The sampled byte scan for the prescan's key words and the other stages' words (pipeline/item-scan.ts): it reads
// a third of the bytes (for the default words) where regular expressions read all (docs/decisions/021, 028, 030).
// Every word is 3+ bytes, so a sample every (shortest length - 1) bytes lands inside each occurrence, and a word is
// compared only around a sample whose pair of bytes, and the bytes beside them, it holds. It answers as `/word1|word2…/i` on the latin1 decode
// (test/pii/prescan.test.ts), or as `includes` for an exact word (test/pipeline/item-scan.test.ts).

/** ASCII lower-cased, as the regexes' `i` flag compares an ASCII word; 0 beyond ASCII (never in a word). */
const FOLD = new Uint8Array(256);
for (let c = 0; c < 128; c++) FOLD[c] = c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
/**
 * A word's folded bytes, the offset in it of the pair it is filed under, its exact bytes when its case matters, and
 * the bit the scan sets when it occurs.
 */
type Entry = { offset: number; word: Uint8Array; exact: Uint8Array | undefined; bit: number; near?: Uint32Array };

/**
 * Words by the pair of bytes they are filed under, and how far apart the scan samples. A pair is looked up by its
 * bytes' low 7 bits (`slots`, 32 KB: no fold per sample; a byte beyond ASCII lands on an ASCII pair's slot and is
 * refused by the comparison). A slot's `after`/`before` masks (128 bits each) hold the bytes that may follow or
 * precede the pair in one of its words, so most false candidates cost two bit tests instead of a comparison.
 */
export interface WordTable {
  stride: number;
  slots: Uint16Array;
  entries: Entry[][];
  after: Uint32Array;
  before: Uint32Array;
  all: number;
}

/** A word for a table: `bit` names its group (1 unless given); `exact` words match in their own case only. */
export interface TableWord {
  text: string;
  bit?: number;
  exact?: boolean;
}

/**
 * A shape (number-shapes.ts): a sample whose pair is one of `first` × `second` (characters), the byte before it one
 * of `before` and the byte after it one of `after`, sets `bit`; no word is compared.
 */
export interface TableShape {
  first: string;
  second: string;
  before: string;
  after: string;
  bit?: number;
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

/** A folded byte (printable ASCII, lower-case) in both cases. */
const cases = (c: number): number[] => (c >= 0x61 && c <= 0x7a ? [c, c - 0x20] : [c]);

/** One word's (or shape's) place under a pair: the bytes that may stand before and after the pair. */
type Filed = { id: number; entry: Entry; before: number[] | undefined; after: number[] | undefined };

const codes = (chars: string): number[] => [...chars].map((c) => c.charCodeAt(0) & 0x7f);
/** 128 bits of `bytes` (undefined: every byte) into `mask` from word `at`. */
const allow = (mask: Uint32Array, at: number, bytes: number[] | undefined) => {
  if (bytes === undefined) mask.fill(0xffffffff, at, at + 4);
  else for (const c of bytes) mask[at + (c >> 5)] = (mask[at + (c >> 5)] as number) | (1 << (c & 31));
};

/**
 * A word of length L holds L - 1 pair positions in a row, so sampling every (shortest L) - 1 positions meets one
 * of any (stride) of its pairs in a row: each word is filed under the run of pairs least seen in TYPICAL.
 * `words` must all be tableable, and not empty. With `shapes`, the stride is at most 3 (what they are proved for).
 */
export function wordTable(words: readonly (string | TableWord)[], shapes: readonly TableShape[] = []): WordTable {
  const specs = words.map((word) => (typeof word === 'string' ? { text: word } : word));
  const shortest = Math.min(...specs.map((word) => word.text.length));
  const stride = shapes.length > 0 ? Math.min(3, shortest - 1) : shortest - 1;
  let all = 0;
  let ids = 0;
  /** Words by folded pair, shapes by the pair's 7-bit bytes. */
  const byFolded = new Map<number, Filed[]>();
  const byRaw = new Map<number, Filed[]>();
  const file = (map: Map<number, Filed[]>, pair: number, filed: Omit<Filed, 'id'>) =>
    map.set(pair, [...(map.get(pair) ?? []), { ...filed, id: ids++ }]);
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
      const next = word[offset + 2];
      file(byFolded, ((word[offset] as number) << 7) | (word[offset + 1] as number), {
        entry: { offset, word, exact: exact ? Uint8Array.from(raw) : undefined, bit },
        after: next === undefined ? undefined : cases(next),
        before: offset > 0 ? cases(word[offset - 1] as number) : undefined,
      });
    }
  }
  for (const { first, second, before, after, bit = 1 } of shapes) {
    all |= bit;
    const near = new Uint32Array(8);
    allow(near, 0, codes(before));
    allow(near, 4, codes(after));
    const entry = { offset: 0, word: new Uint8Array(0), exact: undefined, bit, near };
    const filed = { entry, before: codes(before), after: codes(after), id: ids++ };
    for (const a of codes(first))
      for (const b of codes(second)) byRaw.set((a << 7) | b, [...(byRaw.get((a << 7) | b) ?? []), filed]);
  }
  // One slot per distinct list of words and shapes; slot 0 is "none".
  const slots = new Uint16Array(128 * 128);
  const lists: Filed[][] = [[]];
  const slotOf = new Map<string, number>();
  for (let pair = 0; pair < 128 * 128; pair++) {
    const folded = ((FOLD[pair >> 7] as number) << 7) | (FOLD[pair & 0x7f] as number);
    const words = byFolded.get(folded);
    const shapesHere = byRaw.get(pair);
    if (words === undefined && shapesHere === undefined) continue;
    const list = [...(words ?? []), ...(shapesHere ?? [])];
    const key = list.map((filed) => filed.id).join(',');
    let slot = slotOf.get(key);
    if (slot === undefined) {
      slot = lists.length;
      slotOf.set(key, slot);
      lists.push(list);
    }
    slots[pair] = slot;
  }
  const after = new Uint32Array(lists.length * 4);
  const before = new Uint32Array(lists.length * 4);
  lists.forEach((list, slot) => {
    for (const filed of list) {
      allow(after, slot * 4, filed.after);
      allow(before, slot * 4, filed.before);
    }
  });
  return { stride, slots, entries: lists.map((list) => list.map(({ entry }) => entry)), after, before, all };
}

/** Whether one of the table's words occurs in `b` in any ASCII case (as a regex with the `i` flag on latin1). */
export function hasWord(b: Uint8Array, table: WordTable): boolean {
  return foundWords(b, table) !== 0;
}

/**
 * The bits of the words that occur in `b` (an exact word in its own case, the others in any ASCII case), in one
 * pass that ends once every bit is set: several stages' words share it (pipeline/item-scan.ts). The pass first
 * collects candidate samples, then compares words there: a loop with the comparison (a call or inner loop) inside
 * compiled to twice the cost per sample (4.4–4.8 against 2.7 µs on the bench event, docs/decisions/030).
 */
export function foundWords(b: Uint8Array, table: WordTable): number {
  const { stride, slots, entries, all } = table;
  let found = 0;
  for (let from = stride - 1; ; ) {
    const count = candidates(b, table, from);
    for (let k = 0; k < count; k++) {
      const i = HITS[k] as number;
      const slot = slots[(((b[i] as number) & 0x7f) << 7) | ((b[i + 1] as number) & 0x7f)] as number;
      found = confirmed(entries[slot] as Entry[], b, i, found);
      if (found === all) return found;
    }
    if (count < HITS.length) return found;
    from = (HITS[HITS.length - 1] as number) + stride;
  }
}

/** Where `candidates` puts the samples it finds (one scan runs at a time). */
const HITS = new Int32Array(64);

/** Samples from `from` on whose pair and neighbours a word may hold, into HITS: how many (all of HITS: stopped). */
function candidates(b: Uint8Array, table: WordTable, from: number): number {
  const { stride, slots, after, before } = table;
  const hits = HITS;
  const n = b.length;
  let count = 0;
  for (let i = from; i + 1 < n; i += stride) {
    const slot = slots[(((b[i] as number) & 0x7f) << 7) | ((b[i + 1] as number) & 0x7f)] as number;
    if (slot === 0) continue;
    // Past the end reads as 0, which no word holds: refused unless a word may end with the pair.
    const next = i + 2 < n ? (b[i + 2] as number) & 0x7f : 0;
    if ((((after[slot * 4 + (next >> 5)] as number) >>> (next & 31)) & 1) === 0) continue;
    const previous = (b[i - 1] as number) & 0x7f; // i >= stride - 1 >= 1
    if ((((before[slot * 4 + (previous >> 5)] as number) >>> (previous & 31)) & 1) === 0) continue;
    hits[count++] = i;
    if (count === hits.length) return count;
  }
  return count;
}

/** `found` with the bits of the slot's words that occur around sample `i`. */
function confirmed(entries: Entry[], b: Uint8Array, i: number, found: number): number {
  const fold = FOLD;
  for (let e = 0; e < entries.length; e++) {
    const { offset, word, exact, bit, near } = entries[e] as Entry;
    const start = i - offset;
    if ((found & bit) !== 0 || start < 0 || start + word.length > b.length) continue;
    if (near !== undefined && !nearMatches(near, b, i)) continue;
    let j = 0;
    while (j < word.length && fold[b[start + j] as number] === word[j]) j++;
    if (j < word.length) continue;
    if (exact !== undefined) {
      j = 0;
      while (j < exact.length && b[start + j] === exact[j]) j++;
      if (j < exact.length) continue;
    }
    found |= bit;
  }
  return found;
}

/** Whether the bytes before and after sample `i` are in a shape's sets (`near`: 128 bits each). */
function nearMatches(near: Uint32Array, b: Uint8Array, i: number): boolean {
  const previous = (b[i - 1] as number) & 0x7f;
  const next = i + 2 < b.length ? (b[i + 2] as number) & 0x7f : 0;
  return (
    (((near[previous >> 5] as number) >>> (previous & 31)) & 1) === 1 &&
    (((near[4 + (next >> 5)] as number) >>> (next & 31)) & 1) === 1
  );
}
