/** How long an acknowledgement's note and name may be: a file that imports nothing, for the CLI's help. */

/** Longest note kept with an acknowledgement. */
export const MAX_NOTE_LENGTH = 2000;
/** Longest name of who acknowledged. */
export const MAX_ACK_NAME_LENGTH = 100;
