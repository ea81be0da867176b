/**
 * `handoff.get` (docs/architecture.md#handoff): the window's Handoff view asks the engine over RPC — the real handlers
 * and dispatch (request schema included) over the scripted shift; the answer is the on-call layer's
 * report, a bad `since` an invalid-argument naming it, an unknown org not-found.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OnCallKnowledge } from '../../../electron/knowledge/service';
import { Store } from '../../../electron/store/database';
import { type HandoffReport, handoffFirstRows } from '../../../shared/handoff';
import { RpcError } from '../../../shared/rpc';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { engineDispatch } from '../../helpers/engineClient';
import { SHIFT_END, SHIFT_ORG, SHIFT_START, playShift } from '../../helpers/handoffShift';

let store: Store;
let dataDir: string;

beforeEach(async () => {
  dataDir = tempDir('dh-handoff-rpc-');
  store = await Store.open({ dataDir: null });
  await playShift(store);
});
afterEach(async () => {
  await store.close();
  removeTempDirs();
});

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
};

describe('handoff.get', () => {
  it('answers the on-call layer’s report for the window, as a time or a duration', async () => {
    const { dispatch } = engineDispatch(store, dataDir, SHIFT_END);
    const expected = await new OnCallKnowledge({ store, now: () => SHIFT_END, sources: () => [] }).handoff(
      SHIFT_ORG,
      SHIFT_START,
    );
    expect(await dispatch('handoff.get', { orgId: SHIFT_ORG, since: SHIFT_START.toISOString() })).toEqual(
      expected,
    );
    expect(await dispatch('handoff.get', { orgId: SHIFT_ORG, since: '8h' })).toEqual(expected);
    expect(expected.summary).toMatchObject({ newlyFailed: 2, recovered: 1, stillFailing: 1, atRisk: 1 });
  });

  it('answers the first rows of each section when asked (the window asks so), the summary counting all', async () => {
    const { dispatch } = engineDispatch(store, dataDir, SHIFT_END);
    const whole = (await dispatch('handoff.get', { orgId: SHIFT_ORG, since: '8h' })) as HandoffReport;
    const cut = (await dispatch('handoff.get', { orgId: SHIFT_ORG, since: '8h', rows: 1 })) as HandoffReport;
    // The rows' names and messages are read for them alone: the same as the whole report's.
    expect(cut).toEqual(handoffFirstRows(whole, 1));
    expect(await dispatch('handoff.get', { orgId: SHIFT_ORG, since: '8h', rows: 100 })).toEqual(whole);
    expect(whole.newlyFailed.map((trouble) => trouble.message)).toContain('SFTP login refused for user acme');
    expect(cut.summary).toEqual(whole.summary);
    expect(cut.newlyFailed).toHaveLength(1);
    expect(whole.newlyFailed).toHaveLength(2);
    for (const rows of [0, 1.5, -3, 'all'])
      expect(
        (await refusal(dispatch('handoff.get', { orgId: SHIFT_ORG, since: '8h', rows } as never))).code,
      ).toBe('invalid-argument');
  });

  it('refuses a bad since, an unknown org and a malformed request, saying which', async () => {
    const { dispatch } = engineDispatch(store, dataDir, SHIFT_END);
    const future = await refusal(
      dispatch('handoff.get', { orgId: SHIFT_ORG, since: '2026-11-26T15:00:00Z' }),
    );
    expect(future.code).toBe('invalid-argument');
    expect(future.message).toMatch(/^since: '2026-11-26T15:00:00Z' is in the future/);
    const unreadable = await refusal(dispatch('handoff.get', { orgId: SHIFT_ORG, since: 'last night' }));
    expect(unreadable).toMatchObject({ code: 'invalid-argument' });
    expect(unreadable.message).toContain('a duration back from now (90m, 8h, 2d)');
    expect(await refusal(dispatch('handoff.get', { orgId: 'nowhere', since: '8h' }))).toMatchObject({
      code: 'not-found',
      message: "no org 'nowhere' in this mirror",
    });
    expect((await refusal(dispatch('handoff.get', { orgId: SHIFT_ORG }))).code).toBe('invalid-argument');
  });
});
