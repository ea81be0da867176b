/** A failure as one line for the user (RPC errors already carry one). */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
