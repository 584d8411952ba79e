// Character classes the hand-written matchers test by code unit (matchers.ts, user-path.ts, prescan.ts).

/** `[a-zA-Z]`. */
export const isAsciiLetter = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
/** `[a-zA-Z0-9]`. */
export const isAsciiAlnum = (c: number): boolean => isAsciiLetter(c) || (c >= 0x30 && c <= 0x39);
