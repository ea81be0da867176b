/** A failure as one line for the user (RPC errors already carry one). */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * A browser without the session cookie of `serve --ui`: the engine refuses every call with a message
 * that starts so (electron/rpc/webUi.ts), and the state keeps only the message.
 */
export function isNotSignedIn(message: string | null | undefined): boolean {
  return message?.startsWith('not signed in') === true;
}

export const NOT_SIGNED_IN_TITLE = 'Not signed in';
export const NOT_SIGNED_IN_HELP =
  'This browser has no session with the engine. Open the Web UI link that `dataset-health serve --ui` printed in its terminal. The link works once: for a new one, run `dataset-health ui` (with the --data-dir serve was given, if any).';
