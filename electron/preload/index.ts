/** The sandboxed preload: a narrow typed bridge, never raw ipcRenderer. */
import { contextBridge, ipcRenderer } from 'electron';
import { RUNTIME_CHANNEL, type RuntimeView } from './channels';

const bridge = {
  runtime: (): Promise<RuntimeView> => ipcRenderer.invoke(RUNTIME_CHANNEL) as Promise<RuntimeView>,
};

contextBridge.exposeInMainWorld('datasetHealth', bridge);
export type Bridge = typeof bridge;
