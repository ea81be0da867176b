/**
 * Conflicting edits converge (docs/decisions.md "On call as a team: members"): three members of a team
 * server on loopback acknowledge, withdraw, snooze and unsnooze the same failures while random ones are
 * cut off from the server (their pushes and pulls fail), come back, and restart their exchange. Once all
 * are back and quiet, every member has every operation once, the server has each once, and every
 * member shows the same acknowledgements and snoozes — the rules' own state for those operations
 * (electron/team/converge.ts). fast-check draws the interleavings.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acknowledgeDataset, unacknowledgeDataset } from '../../../electron/knowledge/acknowledge';
import { snoozeDataset, unsnoozeDataset } from '../../../electron/knowledge/snooze';
import { Store } from '../../../electron/store/database';
import { type TeamDatabase, openPglite } from '../../../electron/store/teamDb/driver';
import { migrateTeamDatabase } from '../../../electron/store/teamDb/migrations';
import { operationsAfter } from '../../../electron/store/teamDb/operations';
import { teamLinkOf } from '../../../electron/store/tables/teamLinks';
import { operationsOf } from '../../../electron/store/tables/teamLog';
import { TeamState } from '../../../electron/team/converge';
import { TeamExchange } from '../../../electron/team/exchange';
import { askTeamServer, joinTeam } from '../../../electron/team/joining';
import { createTeamToken } from '../../../electron/store/teamDb/tokens';
import { mirrorTwoTroubles, shownState } from '../../helpers/teamMirror';
import { startTeamRoutes } from '../../helpers/team';

const MEMBERS = ['Alice', 'Bob', 'Carol'] as const;
const DATASETS = ['ds-a', 'ds-b'] as const;

let db: TeamDatabase;
let server: { url: string; close(): Promise<void> };
const stores: Store[] = [];

beforeAll(async () => {
  db = await openPglite(null);
  await migrateTeamDatabase(db);
  server = await startTeamRoutes(db);
  for (const _ of MEMBERS) stores.push(await Store.open({ dataDir: null }));
}, 60_000);
afterAll(async () => {
  await server?.close();
  for (const store of stores) await store.close();
  await db?.close();
});

type Step =
  | { member: number; kind: 'acknowledge' | 'unacknowledge' | 'snooze' | 'unsnooze'; dataset: number }
  | { member: number; kind: 'cut' | 'reconnect' | 'restart' | 'exchange' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    member: fc.nat(2),
    kind: fc.constantFrom(
      'acknowledge' as const,
      'unacknowledge' as const,
      'snooze' as const,
      'unsnooze' as const,
    ),
    dataset: fc.nat(1),
  }),
  fc.record({
    member: fc.nat(2),
    kind: fc.constantFrom('cut' as const, 'reconnect' as const, 'restart' as const, 'exchange' as const),
  }),
);

/** A member: its store, its exchange, and whether the network lets it reach the server. */
interface Desk {
  store: Store;
  exchange: TeamExchange;
  cut: boolean;
}

let run = 0;

describe('members of a team', () => {
  it('converge on the rules’ state whatever the interleaving, cuts and restarts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 30 }), async (steps) => {
        run += 1;
        const orgId = `org-${run}`;
        const desks: Desk[] = [];
        const exchangeFor = (desk: Omit<Desk, 'exchange'>, token: string): TeamExchange =>
          new TeamExchange({
            store: desk.store,
            link: teamLinkOf(desk.store, orgId)!,
            token,
            now: () => new Date(),
            backoff: { minMs: 5, maxMs: 20 },
            fetch: async (input, init) => {
              if ((desk as Desk).cut) throw new TypeError('fetch failed (cut off)');
              return fetch(input, init);
            },
          });
        const tokens: string[] = [];
        for (const [index, member] of MEMBERS.entries()) {
          const store = stores[index]!;
          await mirrorTwoTroubles(store, orgId);
          const token = (await createTeamToken(db, { orgId, member, role: 'member' }, new Date())).token;
          tokens.push(token);
          joinTeam(store, await askTeamServer(server.url, token), token, new Date());
          const desk = { store, cut: false } as Desk;
          desk.exchange = exchangeFor(desk, token);
          desk.exchange.start();
          desks.push(desk);
        }
        try {
          for (const each of steps) {
            const desk = desks[each.member]!;
            const now = new Date();
            const datasetId = 'dataset' in each ? DATASETS[each.dataset]! : '';
            switch (each.kind) {
              case 'acknowledge':
                acknowledgeDataset(desk.store, orgId, datasetId, `note by ${each.member}`, { by: 'x', now });
                break;
              case 'unacknowledge':
                unacknowledgeDataset(desk.store, orgId, datasetId, { by: 'x', now });
                break;
              case 'snooze':
                snoozeDataset(desk.store, orgId, datasetId, '4h', now);
                break;
              case 'unsnooze':
                unsnoozeDataset(desk.store, orgId, datasetId, now);
                break;
              case 'cut':
                desk.cut = true;
                break;
              case 'reconnect':
                desk.cut = false;
                break;
              case 'restart':
                await desk.exchange.stop();
                desk.exchange = exchangeFor(desk, tokens[each.member]!);
                desk.exchange.start();
                break;
              case 'exchange':
                desk.exchange.nudge();
                await desk.exchange.idle();
            }
            if (each.kind !== 'exchange') desk.exchange.nudge();
          }
          // Everyone back: rounds until every member has what the server has, and the server all of theirs.
          for (const desk of desks) desk.cut = false;
          const stored = async () => operationsAfter(db, orgId, 0, 10_000);
          for (let round = 0; ; round += 1) {
            for (const desk of desks) desk.exchange.nudge();
            await Promise.all(desks.map((desk) => desk.exchange.idle()));
            const onServer = (await stored()).length;
            const settled = desks.every(
              (desk) =>
                desk.exchange.status().waiting === 0 && operationsOf(desk.store, orgId).length === onServer,
            );
            if (settled) break;
            if (round > 200) throw new Error('the members did not settle');
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          const operations = await stored();
          expect(new Set(operations.map((op) => op.opId)).size).toBe(operations.length);
          const shown = desks.map((desk) => shownState(desk.store, orgId));
          expect(shown[1]).toEqual(shown[0]);
          expect(shown[2]).toEqual(shown[0]);
          const model = TeamState.of(operations).summary();
          expect(shown[0]!.acknowledgements.map((row) => [row.dataset_id, row.by_name, row.note])).toEqual(
            model.acknowledgements
              .filter((ack) => ack.acknowledged)
              .map((ack) => [ack.datasetId, ack.stamp.author, ack.note]),
          );
          expect(shown[0]!.snoozes.map((row) => row.dataset_id)).toEqual(
            model.snoozes.filter((snooze) => snooze.snoozed).map((snooze) => snooze.datasetId),
          );
        } finally {
          await Promise.all(desks.map((desk) => desk.exchange.stop()));
        }
      }),
      { numRuns: 12 },
    );
  }, 240_000);
});
