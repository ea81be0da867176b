/** IPC channels between the shell and the renderer: every one carries the `dh:` prefix. */
import type { RpcCall, RpcEvent } from '../../shared/rpc';

export const CHANNEL_PREFIX = 'dh:';
export const rpcCallChannel = (name: RpcCall): string => `${CHANNEL_PREFIX}rpc:${name}`;
export const rpcEventChannel = (name: RpcEvent): string => `${CHANNEL_PREFIX}event:${name}`;
