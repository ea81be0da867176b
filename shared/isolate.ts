/**
 * Text a person stored or a remote sent (a name, a note, an error), set inside a sentence composed as a
 * string — a tooltip, an alert's title, a status line: wrapped in U+2068 FIRST STRONG ISOLATE … U+2069
 * POP DIRECTIONAL ISOLATE, the plain-text form of `<bdi>`, so its own direction (a right-to-left name,
 * or a U+202E RIGHT-TO-LEFT OVERRIDE in it) stays inside it and never turns the rest of the sentence
 * around. In templates, `<bdi>` does the same.
 */
export const isolate = (text: string): string => `\u2068${text}\u2069`;
