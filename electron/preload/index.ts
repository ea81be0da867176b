/** The sandboxed preload: a narrow typed bridge (bridge.ts), never raw ipcRenderer. */
import { contextBridge, ipcRenderer } from 'electron';
import { createBridge } from './bridge';

contextBridge.exposeInMainWorld('datasetHealth', createBridge(ipcRenderer));
