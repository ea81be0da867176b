/** JSON's punctuation as UTF-8 bytes, for the scanners that split large JSON texts without decoding them. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const NEWLINE = 0x0a;

/** JSON's whitespace: space, tab, line feed, carriage return. */
export const isSpace = (c: number): boolean => c === 0x20 || c === NEWLINE || c === 0x0d || c === 0x09;
