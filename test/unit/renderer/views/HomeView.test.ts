/**
 * Where the window lands (`/`), against the real engine: the first org's Triage while any of its
 * datasets is FAILED or MISSING, else its datasets.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { loadDemo } from '../../../../electron/demo/load';
import { useSyncState } from '../../../../renderer/src/state/sync';
import { ENGINE_NOW, ENGINE_ORG, type EngineClient, engineClient } from '../../../helpers/engineClient';
import { type MountedView, mountView } from './mountView';
import '../../../../renderer/src/views/HomeView.vue';

let engine: EngineClient;
let view: MountedView | null = null;

beforeEach(async () => {
  engine = await engineClient({ datasets: 60 });
});
afterEach(async () => {
  view?.wrapper.unmount();
  view = null;
  await engine.close();
});

/** Mounts `/` and loads the orgs, as the window's frame does when it starts. */
async function land(): Promise<MountedView> {
  const mounted = await mountView(engine.client, { name: 'home' });
  await useSyncState(mounted.pinia).refresh();
  return mounted;
}

it('lands on Triage when the org has FAILED or MISSING datasets', async () => {
  const { byStatus } = await engine.client.call('datasets.counts', {
    orgId: ENGINE_ORG,
    filters: [],
    search: '',
    sort: '',
  });
  expect(byStatus.FAILED + byStatus.MISSING).toBeGreaterThan(0);
  view = await land();
  await vi.waitFor(() => expect(view!.router.currentRoute.value.name).toBe('triage'));
  expect(view.router.currentRoute.value.params.orgId).toBe(ENGINE_ORG);
});

it('lands on the datasets when nothing is FAILED or MISSING', async () => {
  // "aaa" sorts before acme: the first org, and nothing of it is FAILED or MISSING (it has no datasets yet).
  loadDemo(engine.store, { orgId: 'aaa', datasets: 0, seed: 1, now: ENGINE_NOW });
  view = await land();
  await vi.waitFor(() => expect(view!.router.currentRoute.value.name).toBe('datasets'));
  expect(view.router.currentRoute.value.params.orgId).toBe('aaa');
});
