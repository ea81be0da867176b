/** IPC channels between the shell and the renderer; every channel carries the `dh:` prefix. */
export const RUNTIME_CHANNEL = 'dh:runtime';

export interface RuntimeView {
  apiUrl: string;
  dataDir: string;
}
