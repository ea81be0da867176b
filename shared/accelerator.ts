/**
 * The global shortcut as the user types it: an Electron accelerator ("CommandOrControl+Shift+H"). Checked
 * here, in the engine's settings write and in the Settings window alike, so a shortcut Electron would
 * refuse, or one that would take a plain key from every other app, is named before it is saved
 * (docs/decisions.md "Desktop habits (issue 27)"). The names are Electron's own list (its Accelerator
 * page); case does not matter, as in Electron.
 */

/** Modifiers, by the name Electron takes, with the aliases that mean the same key. */
const MODIFIERS: Record<string, string> = {
  command: 'Command',
  cmd: 'Command',
  control: 'Control',
  ctrl: 'Control',
  commandorcontrol: 'CommandOrControl',
  cmdorctrl: 'CommandOrControl',
  alt: 'Alt',
  option: 'Alt',
  altgr: 'AltGr',
  shift: 'Shift',
  super: 'Super',
  meta: 'Super',
};

/** Keys that may stand alone: they type nothing, so no other app loses a character to them. */
const FREE_KEYS = [
  ...Array.from({ length: 24 }, (_, i) => `F${i + 1}`),
  'VolumeUp',
  'VolumeDown',
  'VolumeMute',
  'MediaNextTrack',
  'MediaPreviousTrack',
  'MediaStop',
  'MediaPlayPause',
  'PrintScreen',
];

const TYPING_KEYS = [
  ...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  ...')!@#$%^&*(:;=<,_->.?/~`{][|\\}"',
  'Plus',
  'Space',
  'Tab',
  'Capslock',
  'Numlock',
  'Scrolllock',
  'Backspace',
  'Delete',
  'Insert',
  'Return',
  'Enter',
  'Up',
  'Down',
  'Left',
  'Right',
  'Home',
  'End',
  'PageUp',
  'PageDown',
  'Escape',
  'Esc',
  ...Array.from({ length: 10 }, (_, i) => `num${i}`),
  'numdec',
  'numadd',
  'numsub',
  'nummult',
  'numdiv',
];

const byName = (keys: string[]) => new Map(keys.map((key) => [key.toLowerCase(), key]));
const FREE = byName(FREE_KEYS);
const TYPING = byName(TYPING_KEYS);

export const SHORTCUT_EXAMPLE = 'CommandOrControl+Shift+H';

/** Modifiers that make a typing key a shortcut (Shift alone only makes it a capital letter). */
const SHORTCUT_MODIFIERS = new Set(['Command', 'Control', 'CommandOrControl', 'Alt', 'AltGr', 'Super']);

/** What is wrong with an accelerator, in words a user can act on; null when Electron can take it. */
export function acceleratorProblem(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === '') return `Type a shortcut, e.g. ${SHORTCUT_EXAMPLE}`;
  if (trimmed !== text) return 'No spaces around the shortcut';
  const parts = text.split('+');
  if (parts.some((part) => part === ''))
    return `Join keys with one + and write the + key as Plus, e.g. ${SHORTCUT_EXAMPLE}`;
  const key = parts.at(-1)!;
  const modifiers: string[] = [];
  for (const part of parts.slice(0, -1)) {
    const modifier = MODIFIERS[part.toLowerCase()];
    if (modifier === undefined)
      return TYPING.has(part.toLowerCase()) || FREE.has(part.toLowerCase())
        ? `Only one key after the modifiers: "${part}" and "${key}" are both keys`
        : `Unknown modifier "${part}": use Command, Control, CommandOrControl, Alt, AltGr, Shift or Super`;
    if (modifiers.includes(modifier)) return `"${part}" is given twice`;
    modifiers.push(modifier);
  }
  if (MODIFIERS[key.toLowerCase()] !== undefined)
    return `"${key}" is a modifier: end with a key, e.g. ${SHORTCUT_EXAMPLE}`;
  if (FREE.has(key.toLowerCase())) return null;
  if (!TYPING.has(key.toLowerCase()))
    return `Unknown key "${key}": use a letter, a digit, F1–F24, a sign or a named key (Space, Up, PageDown, …)`;
  if (!modifiers.some((modifier) => SHORTCUT_MODIFIERS.has(modifier)))
    return `Add Control, Alt, Command or Super: "${key}" alone would be taken from every other app`;
  return null;
}
