/**
 * The global shortcut's check (shared/accelerator.ts) as a table: what Electron takes, and every way a
 * typed shortcut can be refused, with the words the user reads under the field.
 */
import { describe, expect, it } from 'vitest';
import { acceleratorProblem } from '../../../shared/accelerator';

describe('acceleratorProblem', () => {
  it.each([
    'CommandOrControl+Shift+H',
    'CmdOrCtrl+Alt+T',
    'ctrl+shift+h',
    'Super+F',
    'Alt+Plus',
    'Control+Space',
    'Option+Command+PageDown',
    'F13',
    'Shift+F5',
    'MediaPlayPause',
    'Ctrl+num5',
    'Ctrl+/',
  ])('takes %s', (accelerator) => {
    expect(acceleratorProblem(accelerator)).toBeNull();
  });

  it.each([
    ['', 'Type a shortcut, e.g. CommandOrControl+Shift+H'],
    [' Ctrl+H', 'No spaces around the shortcut'],
    ['Ctrl++', 'Join keys with one + and write the + key as Plus, e.g. CommandOrControl+Shift+H'],
    ['Ctrl+', 'Join keys with one + and write the + key as Plus, e.g. CommandOrControl+Shift+H'],
    [
      'Hyper+H',
      'Unknown modifier "Hyper": use Command, Control, CommandOrControl, Alt, AltGr, Shift or Super',
    ],
    ['Ctrl+A+B', 'Only one key after the modifiers: "A" and "B" are both keys'],
    ['Ctrl+Control+H', '"Control" is given twice'],
    ['Ctrl+Shift', '"Shift" is a modifier: end with a key, e.g. CommandOrControl+Shift+H'],
    [
      'Ctrl+Enterr',
      'Unknown key "Enterr": use a letter, a digit, F1–F24, a sign or a named key (Space, Up, PageDown, …)',
    ],
    ['H', 'Add Control, Alt, Command or Super: "H" alone would be taken from every other app'],
    ['Shift+H', 'Add Control, Alt, Command or Super: "H" alone would be taken from every other app'],
  ])('refuses %j: %s', (accelerator, problem) => {
    expect(acceleratorProblem(accelerator)).toBe(problem);
  });
});
