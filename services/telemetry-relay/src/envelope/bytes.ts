// The bytes the envelope and JSON scanners look for (one list, so each scanner names them the same way); its lines
// are alike in shape on purpose (`duplicates` pairs its halves): constants, no logic.

export const NEWLINE = 0x0a;
export const CR = 0x0d;
export const QUOTE = 0x22;
export const MINUS = 0x2d;
export const ZERO = 0x30;
export const NINE = 0x39;
export const COLON = 0x3a;
export const OPEN_BRACKET = 0x5b;
export const BACKSLASH = 0x5c;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
