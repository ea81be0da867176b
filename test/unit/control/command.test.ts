/**
 * What of a failure the user reads (`failureOf`), the one reading both doors share — the CLI alone and
 * the running instance's control channel: a command's own error, or the operating system's refusal as
 * Node reports it, is the user's to read; anything else is a bug (logged by the instance, "internal
 * error" to the CLI).
 */
import { openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CommandError, CommandUsageError, failureOf } from '../../../electron/control/command';

/** A real system error: what the OS said about a file that is not there. */
function missingFile(): unknown {
  try {
    openSync('/nonexistent-dir-of-dataset-health/x.json', 'r');
  } catch (error) {
    return error;
  }
  throw new Error('the file exists');
}

describe('failureOf', () => {
  it('a command error is read as it is: exit 1, or 2 for a usage error', () => {
    expect(failureOf(new CommandError('no org here'))).toEqual({
      message: 'no org here',
      exit: 1,
      bug: false,
    });
    expect(failureOf(new CommandUsageError('--cause needs --org'))).toEqual({
      message: '--cause needs --org',
      exit: 2,
      bug: false,
    });
  });

  it("the operating system's refusal is read as Node words it, not taken for a bug", () => {
    const failure = failureOf(missingFile());
    expect(failure).toMatchObject({ exit: 1, bug: false });
    expect(failure.message).toMatch(/^ENOENT: no such file or directory, open '.*x\.json'$/);
  });

  it('anything else is a bug', () => {
    expect(failureOf(new TypeError("Cannot read properties of undefined (reading 'x')"))).toMatchObject({
      exit: 1,
      bug: true,
    });
    expect(failureOf('thrown text')).toEqual({ message: 'thrown text', exit: 1, bug: true });
    // Looks like a system error but is not one: no syscall.
    expect(failureOf(Object.assign(new Error('nope'), { code: 'ENOENT' }))).toMatchObject({ bug: true });
  });
});
