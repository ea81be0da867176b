/**
 * What a name of who acknowledges and a note may be (shared/causes.ts): the one check every door that
 * acknowledges and the import make, so a snapshot holds exactly what the app itself can store.
 */
import { describe, expect, it } from 'vitest';
import { ackNameProblem, noteProblem } from '../../../shared/causes';

describe('ackNameProblem', () => {
  it.each([
    ['sam', null],
    ['Ana María 🙂', null],
    ['x'.repeat(100), null],
    ['', 'must be 1 to 100 characters'],
    ['x'.repeat(101), 'must be 1 to 100 characters'],
    [' sam', 'has spaces at its start or end (names are kept trimmed)'],
    ['sam\u0000', 'has a control character (U+0000); a name is plain text'],
    ['sam\u001b[31m', 'has a control character (U+001B); a name is plain text'],
    ['sa\tm', 'has a control character (U+0009); a name is plain text'],
    ['sa\nm', 'has a control character (U+000A); a name is plain text'],
    ['sam\u007f', 'has a control character (U+007F); a name is plain text'],
    ['sam\u009b', 'has a control character (U+009B); a name is plain text'],
  ])('%j: %s', (name, problem) => {
    expect(ackNameProblem(name)).toBe(problem);
  });
});

describe('noteProblem', () => {
  it.each([
    ['', null],
    ['rotating the key', null],
    ['line one\nline two\twith a tab', null],
    ['n'.repeat(2000), null],
    ['n'.repeat(2001), 'is 2001 characters; at most 2000 are kept'],
    ['on it\n', 'has spaces or line breaks at its start or end (notes are kept trimmed)'],
    ['line one\r\nline two', 'has a control character (U+000D); a note holds text, line breaks and tabs'],
    ['on it\u0000', 'has a control character (U+0000); a note holds text, line breaks and tabs'],
    ['on \u001b[2J it', 'has a control character (U+001B); a note holds text, line breaks and tabs'],
    ['on it\u0085', 'has a control character (U+0085); a note holds text, line breaks and tabs'],
  ])('%j: %s', (note, problem) => {
    expect(noteProblem(note)).toBe(problem);
  });
});
