/**
 * `dataset.timeline` over the real handlers and dispatch: a dataset's entries with the org's sync outages
 * beside them, by its id or its v1 (legacy) id; an unknown dataset is not found — as
 * `/local/v1/datasets/{id}/timeline` answers 404 — never a list of the org's outages alone.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../../electron/store/database';
import { recordLoss } from '../../../electron/store/tables/outages';
import { RpcError, type RpcResponse } from '../../../shared/rpc';
import { ORG, putDataset } from '../../helpers/alerts';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { ENGINE_NOW, engineDispatch } from '../../helpers/engineClient';

let store: Store;
let dataDir: string;

beforeEach(async () => {
  dataDir = tempDir('dh-timeline-rpc-');
  store = await Store.open({ dataDir: null });
  putDataset(store, 1, 'HEALTHY', 'd1');
  recordLoss(store, {
    orgId: ORG,
    sourceId: 'acme-remote',
    sourceName: 'Acme remote',
    lastSuccessAt: '2026-11-21T02:00:00.000Z',
    lostAt: '2026-11-21T03:00:00.000Z',
  });
});
afterEach(async () => {
  await store.close();
  removeTempDirs();
});

describe('dataset.timeline', () => {
  it("answers a dataset's entries with the org's outages beside them", async () => {
    const { dispatch } = engineDispatch(store, dataDir, ENGINE_NOW);
    const entries = (await dispatch('dataset.timeline', {
      orgId: ORG,
      datasetId: 'ds-1',
    })) as RpcResponse<'dataset.timeline'>;
    expect(entries.map((entry) => entry.kind)).toContain('outage');
  });

  it('refuses a dataset the org does not have, as the local API does', async () => {
    const { dispatch } = engineDispatch(store, dataDir, ENGINE_NOW);
    const error = await dispatch('dataset.timeline', { orgId: ORG, datasetId: 'ds-404' }).then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ code: 'not-found', message: "no dataset 'ds-404' in org 'acme'" });
    // Another org's dataset is as unknown as a missing one.
    const foreign = await dispatch('dataset.timeline', { orgId: 'other', datasetId: 'ds-1' }).then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(foreign).toMatchObject({ code: 'not-found' });
  });
});
