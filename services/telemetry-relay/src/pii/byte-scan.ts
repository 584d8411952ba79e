// The sampled byte scan for the prescan's key words and the other stages' words (pipeline/item-scan.ts): it reads
// a third of the bytes (for the default words) where regular expressions read all (docs/decisions/021, 028, 030).
// Every word is 3+ bytes, so a sample every (shortest length - 1) bytes lands inside each occurrence, and a word is
// compared only around a sample whose pair of bytes, and the bytes beside them, it holds. It answers as `/word1|word2…/i` on the latin1 decode
// (test/prescan.test.ts), or as `includes` for an exact word (test/item-scan.test.ts).

/** ASCII lower-cased, as the regexes' `i` flag compares an ASCII word; 0 beyond ASCII (never in a word). */
const FOLD = new Uint8Array(256);
for (let c = 0; c < 128; c++) FOLD[c] = c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
/**
 * A word's folded bytes, the offset in it of the pair it is filed under, its exact bytes when its case matters, and
 * the bit the scan sets when it occurs.
 */
type Entry = { offset: number; word: Uint8Array; exact: Uint8Array | undefined; bit: number };

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

/**
 * A word of length L holds L - 1 pair positions in a row, so sampling every (shortest L) - 1 positions meets one
 * of any (stride) of its pairs in a row: each word is filed under the run of pairs least seen in TYPICAL.
 * `words` must all be tableable, and not empty.
 */
export function wordTable(words: readonly (string | TableWord)[]): WordTable {
  const specs = words.map((word) => (typeof word === 'string' ? { text: word } : word));
  const stride = Math.min(...specs.map((word) => word.text.length)) - 1;
  /** Slot by folded pair; slot 0 is "no word". */
  const slotOf = new Map<number, number>();
  const filed: Array<Array<{ entry: Entry; after: number | undefined; before: number | undefined }>> = [[]];
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
      const pair = ((word[offset] as number) << 7) | (word[offset + 1] as number);
      let slot = slotOf.get(pair);
      if (slot === undefined) {
        slot = filed.length;
        slotOf.set(pair, slot);
        filed.push([]);
      }
      (filed[slot] as (typeof filed)[number]).push({
        entry: { offset, word, exact: exact ? Uint8Array.from(raw) : undefined, bit },
        after: word[offset + 2],
        before: offset > 0 ? word[offset - 1] : undefined,
      });
    }
  }
  const slots = new Uint16Array(128 * 128);
  const after = new Uint32Array(filed.length * 4);
  const before = new Uint32Array(filed.length * 4);
  const allow = (mask: Uint32Array, slot: number, byte: number | undefined) => {
    // A word without a byte there: any byte may stand there.
    if (byte === undefined) mask.fill(0xffffffff, slot * 4, slot * 4 + 4);
    else
      for (const c of cases(byte)) mask[slot * 4 + (c >> 5)] = (mask[slot * 4 + (c >> 5)] as number) | (1 << (c & 31));
  };
  for (const [pair, slot] of slotOf) {
    for (const a of cases(pair >> 7)) for (const b of cases(pair & 0x7f)) slots[(a << 7) | b] = slot;
    for (const { after: next, before: previous } of filed[slot] as (typeof filed)[number]) {
      allow(after, slot, next);
      allow(before, slot, previous);
    }
  }
  return { stride, slots, entries: filed.map((list) => list.map(({ entry }) => entry)), after, before, all };
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
    const { offset, word, exact, bit } = entries[e] as Entry;
    const start = i - offset;
    if ((found & bit) !== 0 || start < 0 || start + word.length > b.length) continue;
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
