/** ES2024's resizable ArrayBuffer (Node 20, Electron's V8), typed here: the project targets ES2023. */
export interface ResizableArrayBuffer extends ArrayBuffer {
  readonly resizable: boolean;
  readonly maxByteLength: number;
  resize(size: number): void;
}
export const ResizableArrayBuffer = ArrayBuffer as unknown as new (
  size: number,
  options: { maxByteLength: number },
) => ResizableArrayBuffer;
