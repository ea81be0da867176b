/**
 * The read-only /local/v1 endpoints (docs/api.md#local-v1) against a reference: an org synced from a table of
 * datasets, failures acknowledged one by one and by cause, one recovered by the next sync; every answer
 * of a real server on port 0 is compared whole to what the table and the rules of docs/architecture.md#the-on-call-layer say it must be.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import {
  AcknowledgementsBody,
  CausesBody,
  IncidentsBody,
  TimelineBody,
} from '../../../electron/api/localSchemas';
import { acknowledgeCause, acknowledgeDataset } from '../../../electron/knowledge/acknowledge';
import { addTimelineEntry } from '../../../electron/store/tables/timeline';
import type { AcknowledgementView, CauseDataset, Incident } from '../../../shared/causes';
import { incidentIdOf } from '../../../electron/store/schema/incidents';
import type { TimelineEntry } from '../../../shared/timeline';
import { type DatasetSpec, type LocalFixture, localFixture } from '../../helpers/localApi';

const BLUEFIN = { id: 'sup-1', name: 'Bluefin Exchange Feeds' };
const HARBOR = { id: 'sup-2', name: 'Harbor Data' };
const KESTREL = { id: 'sup-3', name: 'Kestrel' };

const A1: DatasetSpec = {
  id: 'a1',
  name: 'Alpha Prices',
  product: 'Equity Prices',
  supplier: BLUEFIN,
  status: 'FAILED',
  deliveryId: 'a1-d1',
  deadline: '2026-11-21T01:00:00.000Z',
  deliveredAt: '2026-11-21T01:10:00.000Z',
  failure: { stage: 'ingest', shortCode: 'E_AUTH_FAILED', message: 'credentials expired' },
};
const A2: DatasetSpec = {
  id: 'a2',
  name: 'Beta Rates',
  product: 'FX Rates',
  supplier: BLUEFIN,
  status: 'FAILED',
  deliveryId: 'a2-d1',
  deadline: '2026-11-21T02:00:00.000Z',
  deliveredAt: '2026-11-21T02:05:00.000Z',
  failure: { stage: 'ingest', shortCode: 'E_AUTH_FAILED', message: 'credentials expired for feed B' },
};
const A3: DatasetSpec = {
  id: 'a3',
  name: 'Gamma Curves',
  product: 'Curves',
  supplier: HARBOR,
  status: 'FAILED',
  deliveryId: 'a3-d1',
  deadline: '2026-11-21T03:00:00.000Z',
  deliveredAt: '2026-11-21T03:20:00.000Z',
  failure: { stage: 'normalize', shortCode: 'E_SCHEMA_MISMATCH', message: 'column price: expected decimal' },
};
/** FAILED, its tasks not fetched yet: the unknown cause. */
const A4: DatasetSpec = {
  id: 'a4',
  name: 'Delta Index',
  product: 'Indices',
  supplier: HARBOR,
  status: 'FAILED',
  deliveryId: 'a4-d1',
  deadline: '2026-11-21T04:00:00.000Z',
  deliveredAt: null,
};
const A5: DatasetSpec = {
  id: 'a5',
  name: 'Epsilon Volumes',
  product: 'Volumes',
  supplier: KESTREL,
  status: 'MISSING',
  deliveryId: 'a5-d1',
  deadline: '2026-11-21T05:00:00.000Z',
  deliveredAt: null,
};
const A6: DatasetSpec = {
  id: 'a6',
  name: 'Zeta Holidays',
  product: 'Calendars',
  supplier: KESTREL,
  legacyId: 'v1-zeta',
  status: 'HEALTHY',
  deliveryId: 'a6-d1',
  deadline: '2026-11-21T05:30:00.000Z',
  deliveredAt: '2026-11-21T05:20:00.000Z',
};
/** Another org's dataset with the same failure as a1 and a2. */
const G1: DatasetSpec = { ...A1, id: 'g1', name: 'Globex Alpha', deliveryId: 'g1-d1' };
/** a2's next delivery: healthy. */
const A2_RECOVERED: DatasetSpec = {
  ...A2,
  status: 'HEALTHY',
  deliveryId: 'a2-d2',
  deadline: '2026-11-21T06:45:00.000Z',
  deliveredAt: '2026-11-21T06:50:00.000Z',
  failure: undefined,
};

const T0 = '2026-11-21T06:00:00.000Z';
const T1 = '2026-11-21T06:10:00.000Z';
const T2 = '2026-11-21T06:30:00.000Z';
const T3 = '2026-11-21T07:00:00.000Z';

// ---- The reference: what docs/architecture.md#the-on-call-layer says, from the table alone. ----

const acknowledgement = (
  spec: DatasetSpec,
  by: string,
  at: string,
  note: string | null,
  causeId: string | null = null,
  ended: { at: string; reason: string } | null = null,
): AcknowledgementView => ({
  orgId: 'acme',
  datasetId: spec.id,
  deliveryId: spec.deliveryId,
  status: spec.status,
  causeId,
  note,
  by,
  at,
  endedAt: ended?.at ?? null,
  endReason: ended?.reason ?? null,
});

/** A dataset in a cause: its failure's time is when the failed delivery arrived, else its deadline. */
const member = (spec: DatasetSpec, ack: AcknowledgementView | null = null): CauseDataset => ({
  datasetId: spec.id,
  datasetName: spec.name,
  dataProductName: spec.product,
  supplierId: spec.supplier.id,
  supplierName: spec.supplier.name,
  status: spec.status,
  deliveryId: spec.deliveryId,
  since: spec.status === 'MISSING' ? spec.deadline : (spec.deliveredAt ?? spec.deadline),
  message: spec.failure?.message ?? null,
  acknowledgement: ack,
});

type Head = Pick<Incident, 'causeId' | 'kind' | 'title' | 'stage' | 'shortCode'>;

/**
 * An incident from its failures troubled now (given unacknowledged first, then by name) and those over:
 * its id from the earliest failure (the one that opened it), times over all its failures.
 */
function incident(
  org: string,
  head: Head,
  datasets: CauseDataset[],
  over: CauseDataset[] = [],
  openedBy?: DatasetSpec,
): Incident {
  const all = [...datasets, ...over];
  const times = all.map((d) => d.since).sort();
  const founder = openedBy
    ? member(openedBy)
    : [...all].sort((a, b) => a.since.localeCompare(b.since) || a.datasetId.localeCompare(b.datasetId))[0]!;
  const newest = [...datasets].sort((a, b) => b.since.localeCompare(a.since))[0];
  const suppliers = new Map<string, Incident['suppliers'][number]>();
  for (const d of all) {
    const entry = suppliers.get(d.supplierId!) ?? { id: d.supplierId, name: d.supplierName, count: 0 };
    entry.count += 1;
    suppliers.set(d.supplierId!, entry);
  }
  return {
    incidentId: incidentIdOf(org, head.causeId, {
      datasetId: founder.datasetId,
      deliveryId: founder.deliveryId!,
      status: founder.status,
      causeId: head.causeId,
      title: head.title,
      reportedAt: null,
    }),
    ...head,
    count: datasets.length,
    unacknowledged: datasets.filter((d) => d.acknowledgement === null).length,
    recovered: over.length,
    suppliers: [...suppliers.values()].sort((a, b) => b.count - a.count || a.name!.localeCompare(b.name!)),
    firstFailureAt: times[0]!,
    lastFailureAt: times.at(-1)!,
    endedAt: null,
    representative: newest
      ? {
          datasetId: newest.datasetId,
          datasetName: newest.datasetName,
          deliveryId: newest.deliveryId,
          message: newest.message,
        }
      : null,
    datasets,
  };
}

/** As /local/v1/causes answers it: the incident with its times under their former names too. */
const cause = (
  head: Head,
  datasets: CauseDataset[],
  over: CauseDataset[] = [],
  org = 'acme',
  openedBy?: DatasetSpec,
) => {
  const found = incident(org, head, datasets, over, openedBy);
  return { ...found, firstSeenAt: found.firstFailureAt, lastSeenAt: found.lastFailureAt };
};

const AUTH = {
  causeId: 'ingest:E_AUTH_FAILED',
  kind: 'failed',
  title: 'Ingest failed: E_AUTH_FAILED',
  stage: 'ingest',
  shortCode: 'E_AUTH_FAILED',
} as const;
const SCHEMA = {
  causeId: 'normalize:E_SCHEMA_MISMATCH',
  kind: 'failed',
  title: 'Normalize failed: E_SCHEMA_MISMATCH',
  stage: 'normalize',
  shortCode: 'E_SCHEMA_MISMATCH',
} as const;
/**
 * The unknown cause's incident: the sync's commit found a1–a4 all without tasks (they come after it),
 * so a1 opened it; the others moved to their causes once their tasks were stored.
 */
const UNKNOWN = {
  causeId: 'unknown',
  kind: 'unknown',
  title: 'Failed, cause not known yet',
  stage: null,
  shortCode: null,
} as const;
const MISSING_KESTREL = {
  causeId: 'missing:sup-3',
  kind: 'missing',
  title: 'MISSING from Kestrel',
  stage: null,
  shortCode: null,
} as const;

/** What the sync wrote when it first saw a dataset. */
const firstSeen = (spec: DatasetSpec): TimelineEntry => ({
  at: T0,
  kind: 'status',
  from: null,
  to: spec.status,
  deliveryId: spec.deliveryId,
  text: null,
  by: null,
});
const OUTAGE: TimelineEntry = {
  at: '2026-11-21T06:20:00.000Z',
  kind: 'outage',
  from: null,
  to: null,
  deliveryId: null,
  text: 'Lost contact with Acme remote; regained at 2026-11-21T06:25:00.000Z',
  by: null,
};

// ---- The scenario. ----

let fixture: LocalFixture;
const at = (time: string) => (fixture.clock.now = new Date(time));

/** T0: both orgs synced; T1: a3 acknowledged; a sync outage 06:20–06:25. */
beforeEach(async () => {
  fixture = await localFixture({ now: new Date(T0) });
  await fixture.sync('acme', A1, A2, A3, A4, A5, A6);
  await fixture.sync('globex', G1);
  at(T1);
  acknowledgeDataset(fixture.store, 'acme', 'a3', ' looking at the schema ', {
    by: 'dana',
    now: new Date(T1),
  });
  fixture.store.transaction(() =>
    fixture.store.run(
      `INSERT INTO sync_outages (org_id, source_id, source_name, last_success_at, lost_at, regained_at)
       VALUES ('acme', 'acme-remote', 'Acme remote', ?, ?, ?)`,
      ['2026-11-21T06:00:00.000Z', OUTAGE.at, '2026-11-21T06:25:00.000Z'],
    ),
  );
});
afterEach(() => fixture.close());

/** T2: the auth failures acknowledged as a cause; T3: a2 delivers healthy. */
async function acknowledgeAndRecover(): Promise<void> {
  at(T2);
  acknowledgeCause(fixture.store, 'acme', 'INGEST:E_AUTH_FAILED', 'rotating creds', {
    by: 'sam',
    now: new Date(T2),
  });
  at(T3);
  await fixture.sync('acme', A2_RECOVERED);
}

const A3_ACK = acknowledgement(A3, 'dana', T1, 'looking at the schema');
/** The auth incident (a1 and a2, 01:10 and 02:05): opened by a1. */
const AUTH_INCIDENT = incidentIdOf('acme', 'ingest:E_AUTH_FAILED', {
  datasetId: 'a1',
  deliveryId: 'a1-d1',
  status: 'FAILED',
  causeId: 'ingest:E_AUTH_FAILED',
  title: '',
  reportedAt: null,
});
const A1_ACK = acknowledgement(A1, 'sam', T2, 'rotating creds', AUTH_INCIDENT);
const A2_ACK_ENDED = acknowledgement(A2, 'sam', T2, 'rotating creds', AUTH_INCIDENT, {
  at: T3,
  reason: 'delivered (HEALTHY)',
});

async function body<T>(path: string, schema: TSchema, key?: string): Promise<T> {
  const response = await fixture.get(path, key ? { authorization: `Bearer ${key}` } : {});
  expect(response.status, response.body).toBe(200);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(response.headers['cache-control']).toBe('no-store');
  const json = response.json();
  // The response schemas published in the OpenAPI document describe what is sent.
  expect(Value.Check(schema, json), JSON.stringify([...Value.Errors(schema, json)].slice(0, 3))).toBe(true);
  return json as T;
}

describe('GET /local/v1/causes', () => {
  it('lists the live incidents: unacknowledged ones first, then by last failure, newest first', async () => {
    expect(await body('/local/v1/causes', CausesBody)).toEqual({
      causes: [
        cause(MISSING_KESTREL, [member(A5)]),
        cause(UNKNOWN, [member(A4)], [], 'acme', A1),
        cause(AUTH, [member(A1), member(A2)]),
        cause(SCHEMA, [member(A3, A3_ACK)]),
      ],
      syncedAt: T0,
    });
  });

  it('follows acknowledgements and the next sync', async () => {
    await acknowledgeAndRecover();
    // Both failed incidents are owned: the more recent last failure first. a2's failure is over.
    expect(await body('/local/v1/causes', CausesBody)).toEqual({
      causes: [
        cause(MISSING_KESTREL, [member(A5)]),
        cause(UNKNOWN, [member(A4)], [], 'acme', A1),
        cause(SCHEMA, [member(A3, A3_ACK)]),
        cause(AUTH, [member(A1, A1_ACK)], [member(A2)]),
      ],
      syncedAt: T3,
    });
  });

  it('cause= selects one cause by its id in any stage case; one nobody has is an empty list', async () => {
    const auth = cause(AUTH, [member(A1), member(A2)]);
    for (const id of ['ingest:E_AUTH_FAILED', 'INGEST:E_AUTH_FAILED', 'Ingest:E_AUTH_FAILED'])
      expect(await body(`/local/v1/causes?cause=${encodeURIComponent(id)}`, CausesBody)).toEqual({
        causes: [auth],
        syncedAt: T0,
      });
    expect(await body('/local/v1/causes?cause=missing:sup-3', CausesBody)).toEqual({
      causes: [cause(MISSING_KESTREL, [member(A5)])],
      syncedAt: T0,
    });
    expect(await body('/local/v1/causes?cause=unknown', CausesBody)).toEqual({
      causes: [cause(UNKNOWN, [member(A4)], [], 'acme', A1)],
      syncedAt: T0,
    });
    // shortCodes are case-sensitive; a cause with no current failure is no error.
    for (const id of ['ingest:e_auth_failed', 'dispatch:E_AUTH_FAILED', 'missing:sup-1', 'ingest:'])
      expect(await body(`/local/v1/causes?cause=${encodeURIComponent(id)}`, CausesBody)).toEqual({
        causes: [],
        syncedAt: T0,
      });
  });

  it('includeDatasets=false leaves each cause without its datasets', async () => {
    const { datasets: _left, ...auth } = cause(AUTH, [member(A1), member(A2)]);
    for (const value of ['false', 'FALSE', '0'])
      expect(
        await body(`/local/v1/causes?includeDatasets=${value}&cause=ingest:E_AUTH_FAILED`, CausesBody),
      ).toEqual({ causes: [auth], syncedAt: T0 });
    const all = await body<CausesBody>('/local/v1/causes?includeDatasets=0', CausesBody);
    expect(all.causes.map((c) => [c.causeId, 'datasets' in c])).toEqual([
      ['missing:sup-3', false],
      ['unknown', false],
      ['ingest:E_AUTH_FAILED', false],
      ['normalize:E_SCHEMA_MISMATCH', false],
    ]);
    const explicit = await body<CausesBody>('/local/v1/causes?includeDatasets=True', CausesBody);
    expect(explicit.causes[2]!.datasets).toHaveLength(2);
  });

  it("each key sees its own org's causes only", async () => {
    const globex = { ...member(G1) };
    expect(await body('/local/v1/causes', CausesBody, fixture.otherKey)).toEqual({
      causes: [cause(AUTH, [globex], [], 'globex')],
      syncedAt: T0,
    });
  });
});

describe('GET /local/v1/incidents', () => {
  /** As /local/v1/incidents answers: the incident alone (no former names). */
  const live = (head: Head, datasets: CauseDataset[], over: CauseDataset[] = [], openedBy?: DatasetSpec) =>
    incident('acme', head, datasets, over, openedBy);

  it('lists the live incidents as /causes does, without the former names', async () => {
    expect(await body('/local/v1/incidents', IncidentsBody)).toEqual({
      incidents: [
        live(MISSING_KESTREL, [member(A5)]),
        live(UNKNOWN, [member(A4)], [], A1),
        live(AUTH, [member(A1), member(A2)]),
        live(SCHEMA, [member(A3, A3_ACK)]),
      ],
      syncedAt: T0,
    });
  });

  it('incident= gives one, live or over; includeEnded adds those over after the live ones', async () => {
    const auth = live(AUTH, [member(A1), member(A2)]);
    expect(await body(`/local/v1/incidents?incident=${AUTH_INCIDENT}`, IncidentsBody)).toEqual({
      incidents: [auth],
      syncedAt: T0,
    });
    // a1 and a2 both deliver healthy at T3: the incident is over, kept with its failures counted.
    at(T3);
    await fixture.sync('acme', A2_RECOVERED, {
      ...A1,
      status: 'HEALTHY',
      deliveryId: 'a1-d2',
      failure: undefined,
    });
    const live_ = await body<IncidentsBody>('/local/v1/incidents', IncidentsBody);
    expect(live_.incidents.map((each) => each.incidentId)).not.toContain(AUTH_INCIDENT);
    const over = {
      ...live(AUTH, [], [member(A1), member(A2)]),
      endedAt: T3,
    };
    expect(await body(`/local/v1/incidents?incident=${AUTH_INCIDENT}`, IncidentsBody)).toEqual({
      incidents: [over],
      syncedAt: T3,
    });
    const all = await body<IncidentsBody>('/local/v1/incidents?includeEnded=true', IncidentsBody);
    expect(all.incidents.at(-1)).toEqual(over);
    expect(all.incidents.slice(0, -1)).toEqual(live_.incidents);
    // An id nobody has is an empty list; one not spelled as an id is refused, naming the parameter.
    expect(await body('/local/v1/incidents?incident=inc-0000000000', IncidentsBody)).toEqual({
      incidents: [],
      syncedAt: T3,
    });
    // cause= takes a cause key (an incident id there is a mistake, said so).
    const byId = await fixture.get(`/local/v1/incidents?cause=${AUTH_INCIDENT}`);
    expect(byId.status).toBe(400);
    expect(byId.json()).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'cause' });
    const bad = await fixture.get('/local/v1/incidents?incident=ingest:E_AUTH_FAILED');
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'incident' });
  });
});

describe('GET /local/v1/acknowledgements', () => {
  it('lists those that hold now; includeEnded adds the ones that ended, open first, newest first', async () => {
    expect(await body('/local/v1/acknowledgements', AcknowledgementsBody)).toEqual({
      acknowledgements: [A3_ACK],
    });
    await acknowledgeAndRecover();
    expect(await body('/local/v1/acknowledgements', AcknowledgementsBody)).toEqual({
      acknowledgements: [A1_ACK, A3_ACK],
    });
    for (const value of ['true', '1', 'TRUE'])
      expect(await body(`/local/v1/acknowledgements?includeEnded=${value}`, AcknowledgementsBody)).toEqual({
        acknowledgements: [A1_ACK, A3_ACK, A2_ACK_ENDED],
      });
    expect(await body('/local/v1/acknowledgements?includeEnded=false', AcknowledgementsBody)).toEqual({
      acknowledgements: [A1_ACK, A3_ACK],
    });
  });

  it('datasetId= keeps one dataset’s; another org’s or an unknown one has none', async () => {
    await acknowledgeAndRecover();
    expect(
      await body('/local/v1/acknowledgements?datasetId=a2&includeEnded=true', AcknowledgementsBody),
    ).toEqual({ acknowledgements: [A2_ACK_ENDED] });
    expect(await body('/local/v1/acknowledgements?datasetId=a2', AcknowledgementsBody)).toEqual({
      acknowledgements: [],
    });
    expect(await body('/local/v1/acknowledgements?datasetId=a3', AcknowledgementsBody)).toEqual({
      acknowledgements: [A3_ACK],
    });
    acknowledgeDataset(fixture.store, 'globex', 'g1', null, { by: 'kim', now: new Date(T3) });
    for (const id of ['g1', 'nope'])
      expect(
        await body(`/local/v1/acknowledgements?datasetId=${id}&includeEnded=true`, AcknowledgementsBody),
      ).toEqual({ acknowledgements: [] });
    expect(
      await body('/local/v1/acknowledgements?datasetId=g1', AcknowledgementsBody, fixture.otherKey),
    ).toEqual({
      acknowledgements: [{ ...acknowledgement(G1, 'kim', T3, null), orgId: 'globex' }],
    });
  });

  it('cause= matches acknowledgements made for the cause, and those of the failures in it now', async () => {
    await acknowledgeAndRecover();
    const byCause = async (id: string, ended = false) =>
      body(
        `/local/v1/acknowledgements?cause=${encodeURIComponent(id)}${ended ? '&includeEnded=true' : ''}`,
        AcknowledgementsBody,
      );
    // Made with `ack --cause`: also once ended (a2 recovered).
    expect(await byCause('ingest:E_AUTH_FAILED')).toEqual({ acknowledgements: [A1_ACK] });
    expect(await byCause('INGEST:E_AUTH_FAILED', true)).toEqual({ acknowledgements: [A1_ACK, A2_ACK_ENDED] });
    // Made for one failure, which is in this cause now.
    expect(await byCause('normalize:E_SCHEMA_MISMATCH')).toEqual({ acknowledgements: [A3_ACK] });
    expect(await byCause('unknown', true)).toEqual({ acknowledgements: [] });
    expect(await byCause('missing:sup-3', true)).toEqual({ acknowledgements: [] });
    const a5 = acknowledgeDataset(fixture.store, 'acme', 'a5', 'supplier says noon', {
      by: 'dana',
      now: new Date(T3),
    });
    expect(await byCause('missing:sup-3')).toEqual({
      acknowledgements: [acknowledgement(A5, 'dana', T3, 'supplier says noon')],
    });
    expect(a5.causeId).toBeNull();
  });
});

describe('GET /local/v1/datasets/{datasetId}/timeline', () => {
  it('is newest first: acknowledgements, outages and what the sync saw', async () => {
    await acknowledgeAndRecover();
    expect(await body('/local/v1/datasets/a2/timeline', TimelineBody)).toEqual({
      datasetId: 'a2',
      entries: [
        {
          at: T3,
          kind: 'acknowledgement-ended',
          from: null,
          to: null,
          deliveryId: 'a2-d1',
          text: 'delivered (HEALTHY)',
          by: null,
        },
        { at: T3, kind: 'status', from: 'FAILED', to: 'HEALTHY', deliveryId: 'a2-d2', text: null, by: null },
        {
          at: T2,
          kind: 'acknowledged',
          from: null,
          to: 'FAILED',
          deliveryId: 'a2-d1',
          text: 'rotating creds',
          by: 'sam',
        },
        OUTAGE,
        firstSeen(A2),
      ],
    });
    expect(await body('/local/v1/datasets/a3/timeline', TimelineBody)).toEqual({
      datasetId: 'a3',
      entries: [
        OUTAGE,
        {
          at: T1,
          kind: 'acknowledged',
          from: null,
          to: 'FAILED',
          deliveryId: 'a3-d1',
          text: 'looking at the schema',
          by: 'dana',
        },
        firstSeen(A3),
      ],
    });
  });

  it('limit= keeps the newest entries; legacyDatasetId finds the dataset as v2 does', async () => {
    await acknowledgeAndRecover();
    const full = await body<TimelineBody>('/local/v1/datasets/a2/timeline', TimelineBody);
    for (const limit of [1, 2, 5, 500])
      expect(await body(`/local/v1/datasets/a2/timeline?limit=${limit}`, TimelineBody)).toEqual({
        datasetId: 'a2',
        entries: full.entries.slice(0, limit),
      });
    const expected = { datasetId: 'a6', entries: [OUTAGE, firstSeen(A6)] };
    expect(await body('/local/v1/datasets/a6/timeline', TimelineBody)).toEqual(expected);
    expect(await body('/local/v1/datasets/v1-zeta/timeline', TimelineBody)).toEqual(expected);
  });

  it('the default is the newest 100 entries', async () => {
    fixture.store.transaction(() => {
      for (let i = 0; i < 150; i++)
        addTimelineEntry(fixture.store, {
          orgId: 'acme',
          datasetId: 'a6',
          at: new Date(Date.parse(T3) + i * 1000).toISOString(),
          kind: 'notified',
          text: `notification ${i}`,
        });
    });
    const { entries } = await body<TimelineBody>('/local/v1/datasets/a6/timeline', TimelineBody);
    expect(entries).toHaveLength(100);
    expect(entries[0]!.text).toBe('notification 149');
    expect(entries[99]!.text).toBe('notification 50');
  });
});

describe('caching headers', () => {
  const PATHS = ['/local/v1/causes', '/local/v1/acknowledgements', '/local/v1/datasets/a1/timeline'];

  it('X-Synced-At, ETag and 304 until an acknowledgement changes the answer', async () => {
    const revision = fixture.store.dataRevision;
    const tags = new Map<string, string>();
    for (const path of PATHS) {
      const first = await fixture.get(path);
      expect(first.headers['x-synced-at']).toBe(T0);
      const tag = String(first.headers.etag);
      expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      tags.set(path, tag);
      const again = await fixture.get(path, { 'if-none-match': tag });
      expect(again.status).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(tag);
      expect(again.headers['x-synced-at']).toBe(T0);
      expect((await fixture.get(path, { 'if-none-match': `W/${tag}, "other"` })).status).toBe(304);
      expect((await fixture.get(path, { 'if-none-match': '"other"' })).status).toBe(200);
    }
    at(T2);
    acknowledgeDataset(fixture.store, 'acme', 'a1', 'mine', { by: 'sam', now: new Date(T2) });
    // An acknowledgement is a data change (it renews the store's revision too).
    expect(fixture.store.dataRevision).not.toBe(revision);
    for (const path of PATHS) {
      const changed = await fixture.get(path, { 'if-none-match': tags.get(path)! });
      expect(changed.status, path).toBe(200);
      expect(changed.headers.etag).not.toBe(tags.get(path));
    }
  });

  it('a timeline entry written as bookkeeping still changes the ETag (it is the body’s own)', async () => {
    const path = '/local/v1/datasets/a4/timeline';
    const tag = String((await fixture.get(path)).headers.etag);
    fixture.store.transaction(
      () =>
        addTimelineEntry(fixture.store, {
          orgId: 'acme',
          datasetId: 'a4',
          at: T2,
          kind: 'reminded',
          text: 'still failing',
        }),
      { dataChange: false },
    );
    const changed = await fixture.get(path, { 'if-none-match': tag });
    expect(changed.status).toBe(200);
    expect((changed.json() as TimelineBody).entries[0]).toMatchObject({ kind: 'reminded', at: T2 });
    // Another dataset's timeline did not change.
    const other = '/local/v1/datasets/a5/timeline';
    const otherTag = String((await fixture.get(other)).headers.etag);
    expect((await fixture.get(other, { 'if-none-match': otherTag })).status).toBe(304);
  });

  it('X-Synced-At is never before the org’s first sync', async () => {
    const response = await fixture.get('/local/v1/causes?cause=unknown', {
      authorization: `Bearer ${fixture.otherKey}`,
    });
    expect(response.headers['x-synced-at']).toBe(T0);
    const fresh = await localFixture();
    try {
      const empty = await fresh.get('/local/v1/causes');
      expect(empty.status).toBe(200);
      expect(empty.headers['x-synced-at']).toBe('never');
      expect(empty.json()).toEqual({ causes: [], syncedAt: null });
      expect((await fresh.get('/local/v1/acknowledgements')).json()).toEqual({ acknowledgements: [] });
    } finally {
      await fresh.close();
    }
  });

  it('HEAD answers like GET without a body', async () => {
    for (const path of PATHS) {
      const get = await fixture.get(path);
      const head = await fixture.request('HEAD', path);
      expect(head.status).toBe(200);
      expect(head.body).toBe('');
      expect(head.headers.etag).toBe(get.headers.etag);
      expect(head.headers['x-synced-at']).toBe(T0);
      expect(head.headers['cache-control']).toBe('no-store');
    }
    expect((await fixture.request('HEAD', '/local/v1/datasets/g1/timeline')).status).toBe(404);
  });
});
