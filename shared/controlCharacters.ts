/** Control characters in text people type or store: what counts as one, and how a message names it. */

/** Unicode's control characters (Cc: C0, DEL, C1): they drive terminals and break one-line output. */
export const CONTROL = /\p{Cc}/u;

/** How a message names a character: `U+001B`. */
export const codePoint = (char: string): string =>
  `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
