/**
 * `acks.set` over the real handlers and dispatch (request schema included): a note is counted once
 * trimmed, as the CLI's `--note` is — 5,000 spaces and "y" is the note "y" at both doors, and 2,001
 * characters of text are refused at both, naming the limit.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../../electron/store/database';
import { RpcError, type RpcResponse } from '../../../shared/rpc';
import { ORG, putDataset } from '../../helpers/alerts';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { ENGINE_NOW, engineDispatch } from '../../helpers/engineClient';

let store: Store;
let dataDir: string;

beforeEach(async () => {
  dataDir = tempDir('dh-acks-rpc-');
  store = await Store.open({ dataDir: null });
  putDataset(store, 1, 'FAILED', 'd1');
});
afterEach(async () => {
  await store.close();
  removeTempDirs();
});

const acknowledge = (note: string) => {
  const { dispatch } = engineDispatch(store, dataDir, ENGINE_NOW);
  return dispatch('acks.set', { orgId: ORG, datasetId: 'ds-1', causeId: null, note }) as Promise<
    RpcResponse<'acks.set'>
  >;
};

describe('acks.set', () => {
  it('keeps the note trimmed, whatever surrounds it', async () => {
    const { acknowledged } = await acknowledge(`${' '.repeat(5000)}y\n\t`);
    expect(acknowledged.map((ack) => ack.note)).toEqual(['y']);
  });

  it('refuses a note over the limit once trimmed, naming it', async () => {
    const error = await acknowledge(` ${'x'.repeat(2001)} `).then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({
      code: 'invalid-argument',
      message: expect.stringContaining('note is 2001 characters; at most 2000 are kept'),
    });
  });
});
