/**
 * Incidents (docs/decisions.md "Incidents"): each troubled dataset's failure, with its cause key and its
 * failure time, belongs to one incident — the failures of one cause key whose failure times lie within
 * the gap of each other. Kept in two tables and brought up to date by `refreshIncidents` inside every
 * commit that changes what is troubled (a sync cycle, its tasks, a tasks read-through, an import, the
 * demo), so an incident's id never changes as failures join it and every door reads the same groups.
 */
import { createHash } from 'node:crypto';
import type { BindParams } from 'sql.js';
import { DEFAULT_INCIDENT_GAP_HOURS } from '../../../shared/settings';
import { type CurrentFailure, type IncidentSql, currentFailureOf, troubleRows } from './troubledFailures';

export type { CurrentFailure, IncidentSql } from './troubledFailures';
export { refreshScope, tasksScope } from './troubledFailures';

export { DEFAULT_INCIDENT_GAP_HOURS };
export const HOUR_MS = 3_600_000;
/** The default gap (docs/decisions.md "Incidents: why 6 hours"). */
export const DEFAULT_INCIDENT_GAP_MS = DEFAULT_INCIDENT_GAP_HOURS * HOUR_MS;
/** Ended incidents are kept this long (the longest reliability window), then forgotten. */
export const ENDED_INCIDENT_RETENTION_MS = 90 * 24 * HOUR_MS;

/** The earlier of two RFC 3339 instants (null: unknown). */
function earlier(a: string | null, b: string): string {
  return a !== null && Date.parse(a) < Date.parse(b) ? new Date(Date.parse(a)).toISOString() : b;
}

const keyOf = (failure: { datasetId: string; deliveryId: string; status: string }): string =>
  `${failure.datasetId}\n${failure.deliveryId}\n${failure.status}`;

/**
 * An incident's id: from its founding failure (its org, cause and the failure that opened it), so it
 * never changes as failures join, and the same history grouped again gets the same ids.
 */
export function incidentIdOf(orgId: string, causeId: string, founder: CurrentFailure): string {
  const hash = createHash('sha256')
    .update([orgId, causeId, founder.datasetId, founder.deliveryId, founder.status].join('\n'))
    .digest('hex');
  return `inc-${hash.slice(0, 10)}`;
}

/** The incident ids spelled as incidentIdOf spells them (an optional `-N` when two founders collide). */
export const INCIDENT_ID = /^inc-[0-9a-f]{10}(-[0-9]{1,4})?$/;

interface IncidentRange {
  incidentId: string;
  causeId: string;
  first: number;
  last: number;
}

export interface RefreshOptions {
  /** The commit's time: when the mirror learned of the failures it finds new. */
  now: Date;
  gapMs: number;
  /**
   * When the mirror learned of a failure it has no row for yet, if earlier than `now` (a migration
   * reads it from the timeline); default `now`.
   */
  learnedAt?: (failure: CurrentFailure) => string | null;
  /**
   * The only datasets whose trouble may have changed since the last refresh (a poll's written and
   * removed ones, a tasks commit's): the others' failures stand as they are, so only these are read.
   * Absent: the whole org (a first sync, an import, a migration).
   */
  datasetIds?: readonly string[];
}

/** What a refresh changed (the alerts and tests read it). */
export interface RefreshResult {
  joined: number;
  opened: number;
  ended: number;
}

/**
 * Brings the org's incidents up to date with what is troubled now; call inside the transaction that
 * changed it. New failures (oldest first) join the incident of their cause whose failure times lie
 * within the gap (the most recent such, an ended one opening again), else open one; failures no longer
 * their dataset's problem end; an incident with none left troubled ends.
 */
export function refreshIncidents(sql: IncidentSql, orgId: string, options: RefreshOptions): RefreshResult {
  const steps = refreshSteps(sql, orgId, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Troubled datasets read per statement: a step of a few milliseconds. */
const TROUBLE_CHUNK = 512;
/** Failures grouped or settled per step. */
const FAILURES_PER_STEP = 128;

/**
 * refreshIncidents as steps (the generator pauses between them), so a commit can run it in slices with
 * the event loop free between: a first sync's refresh of a 100k org reads 10k troubled datasets and
 * groups as many failures, over half a second in one piece. The transaction holds throughout.
 */
export function* refreshSteps(
  sql: IncidentSql,
  orgId: string,
  options: RefreshOptions,
): Generator<void, RefreshResult, void> {
  const nowIso = options.now.toISOString();
  const result: RefreshResult = { joined: 0, opened: 0, ended: 0 };
  const scope = options.datasetIds ?? null;
  if (scope !== null && scope.length === 0) return result;
  // incident_failures of the datasets in scope (the scope's JSON as ?2): a seek per dataset.
  const failuresInScope =
    scope === null
      ? 'incident_failures f WHERE f.org_id = ?1'
      : 'json_each(?2) j CROSS JOIN incident_failures f ON f.org_id = ?1 AND f.dataset_id = j.value WHERE 1';
  const scopeParams: BindParams = scope === null ? [orgId] : [orgId, JSON.stringify(scope)];
  const current = new Map<string, CurrentFailure>();
  const troubled =
    scope ??
    sql
      .all(`SELECT dataset_id FROM datasets WHERE org_id = ? AND status IN ('FAILED', 'MISSING')`, [orgId])
      .map((row) => String(row.dataset_id));
  for (let start = 0; start < troubled.length; start += TROUBLE_CHUNK) {
    for (const row of troubleRows(sql, orgId, troubled.slice(start, start + TROUBLE_CHUNK))) {
      const failure = currentFailureOf(row);
      current.set(keyOf(failure), failure);
    }
    yield;
  }
  let done = 0;
  const paced = (): boolean => ++done % FAILURES_PER_STEP === 0;
  const touched = new Set<string>();
  /** Learned times of failures whose cause became known: they move, and keep when they were learned. */
  const carried = new Map<string, string>();
  for (const row of sql.all(
    `SELECT f.dataset_id, f.delivery_id, f.status, f.incident_id, f.cause_id, f.failure_at, f.learned_at
     FROM ${failuresInScope} AND f.ended_at IS NULL`,
    scopeParams,
  )) {
    if (paced()) yield;
    const key = keyOf({
      datasetId: String(row.dataset_id),
      deliveryId: String(row.delivery_id),
      status: String(row.status),
    });
    const now = current.get(key);
    const incidentId = String(row.incident_id);
    const where = [orgId, row.dataset_id, row.delivery_id, row.status] as BindParams;
    if (now === undefined) {
      sql.run(
        `UPDATE incident_failures SET ended_at = ? WHERE org_id = ? AND dataset_id = ? AND delivery_id = ? AND status = ?`,
        [nowIso, ...(where as unknown[])] as BindParams,
      );
      touched.add(incidentId);
      continue;
    }
    if (now.causeId !== String(row.cause_id)) {
      // Its cause became known (its tasks arrived): it leaves the provisional group for its own.
      sql.run(
        `DELETE FROM incident_failures WHERE org_id = ? AND dataset_id = ? AND delivery_id = ? AND status = ?`,
        where,
      );
      carried.set(key, String(row.learned_at));
      touched.add(incidentId);
      continue;
    }
    current.delete(key);
    const failureAt = earlier(now.reportedAt, String(row.learned_at));
    if (failureAt !== String(row.failure_at)) {
      sql.run(
        `UPDATE incident_failures SET failure_at = ? WHERE org_id = ? AND dataset_id = ? AND delivery_id = ? AND status = ?`,
        [failureAt, ...(where as unknown[])] as BindParams,
      );
      touched.add(incidentId);
    }
  }

  const fresh = [...current.entries()].map(([key, failure]) => {
    const learnedAt = carried.get(key) ?? earlier(options.learnedAt?.(failure) ?? null, nowIso);
    const failureAt = earlier(failure.reportedAt, learnedAt);
    return { failure, learnedAt, failureAt, at: Date.parse(failureAt) };
  });
  fresh.sort(
    (a, b) =>
      a.at - b.at ||
      (a.failure.datasetId < b.failure.datasetId ? -1 : a.failure.datasetId > b.failure.datasetId ? 1 : 0),
  );
  // Settled before the joins: the ranges they read hold this commit's ends and moved times.
  const settled = new Set<string>();
  for (const incidentId of touched) {
    if (paced()) yield;
    if (settleIncident(sql, orgId, incidentId, nowIso)) result.ended += 1;
    settled.add(incidentId);
  }
  touched.clear();
  if (fresh.length > 0) {
    const ranges = incidentRanges(sql, orgId, fresh[0]!.at - options.gapMs);
    const known = new Set(
      sql
        .all(`SELECT DISTINCT f.dataset_id FROM ${failuresInScope}`, scopeParams)
        .map((row) => String(row.dataset_id)),
    );
    for (const { failure, learnedAt, failureAt, at } of fresh) {
      if (paced()) yield;
      const group = ranges.get(failure.causeId) ?? [];
      let incident: IncidentRange | undefined;
      for (const candidate of group)
        if (at >= candidate.first - options.gapMs && at <= candidate.last + options.gapMs)
          if (incident === undefined || candidate.last > incident.last) incident = candidate;
      if (incident === undefined) {
        incident = {
          incidentId: freeIncidentId(sql, orgId, incidentIdOf(orgId, failure.causeId, failure)),
          causeId: failure.causeId,
          first: at,
          last: at,
        };
        sql.run(
          `INSERT INTO incidents (org_id, incident_id, cause_id, title, first_failure_at, last_failure_at, opened_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [orgId, incident.incidentId, failure.causeId, failure.title, failureAt, failureAt, nowIso],
        );
        group.push(incident);
        ranges.set(failure.causeId, group);
        result.opened += 1;
      } else {
        incident.first = Math.min(incident.first, at);
        incident.last = Math.max(incident.last, at);
        result.joined += 1;
      }
      // A dataset with no failure kept yet (every one on a first sync) has nothing to prune or move.
      if (known.has(failure.datasetId)) {
        // The dataset failing again within the incident: of its earlier failures, over now, only its first
        // is kept (the incident's first time stays exact), so an hourly failure all night is two rows.
        sql.run(
          `DELETE FROM incident_failures
         WHERE org_id = ?1 AND incident_id = ?2 AND dataset_id = ?3 AND ended_at IS NOT NULL
           AND failure_at > (SELECT min(failure_at) FROM incident_failures
                             WHERE org_id = ?1 AND incident_id = ?2 AND dataset_id = ?3)`,
          [orgId, incident.incidentId, failure.datasetId],
        );
        // The same failure troubled once more (a remote that took a status back): it moves here.
        for (const row of sql.all(
          `SELECT incident_id FROM incident_failures WHERE org_id = ? AND dataset_id = ? AND delivery_id = ? AND status = ?`,
          [orgId, failure.datasetId, failure.deliveryId, failure.status],
        ))
          touched.add(String(row.incident_id));
      }
      sql.run(
        `INSERT OR REPLACE INTO incident_failures (org_id, dataset_id, delivery_id, status, incident_id, cause_id,
           failure_at, learned_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          orgId,
          failure.datasetId,
          failure.deliveryId,
          failure.status,
          incident.incidentId,
          failure.causeId,
          failureAt,
          learnedAt,
        ],
      );
      touched.add(incident.incidentId);
    }
  }
  for (const incidentId of touched) {
    if (paced()) yield;
    if (settleIncident(sql, orgId, incidentId, nowIso) && !settled.has(incidentId)) result.ended += 1;
  }
  forgetOldIncidents(sql, orgId, new Date(options.now.getTime() - ENDED_INCIDENT_RETENTION_MS).toISOString());
  return result;
}

/** The org's incidents whose last failure is at or after `from` (epoch ms), by cause. */
function incidentRanges(sql: IncidentSql, orgId: string, from: number): Map<string, IncidentRange[]> {
  const ranges = new Map<string, IncidentRange[]>();
  for (const row of sql.all(
    `SELECT incident_id, cause_id, first_failure_at, last_failure_at FROM incidents
     WHERE org_id = ? AND last_failure_at >= ?`,
    [orgId, new Date(Math.max(from, -8.64e15)).toISOString()],
  )) {
    const range: IncidentRange = {
      incidentId: String(row.incident_id),
      causeId: String(row.cause_id),
      first: Date.parse(String(row.first_failure_at)),
      last: Date.parse(String(row.last_failure_at)),
    };
    const group = ranges.get(range.causeId);
    if (group) group.push(range);
    else ranges.set(range.causeId, [range]);
  }
  return ranges;
}

/** `id`, or `id-2`, `id-3`, … when another founder of the org already took it. */
function freeIncidentId(sql: IncidentSql, orgId: string, id: string): string {
  for (let n = 1; ; n += 1) {
    const candidate = n === 1 ? id : `${id}-${n}`;
    if (
      sql.all('SELECT 1 FROM incidents WHERE org_id = ? AND incident_id = ?', [orgId, candidate]).length === 0
    )
      return candidate;
  }
}

/**
 * An incident's times from its failures; ended when none is troubled (it opens again when one joins).
 * Gone when it has no failure left (a provisional "unknown" group whose failures' causes became known).
 * Returns true when it ended now.
 */
function settleIncident(sql: IncidentSql, orgId: string, incidentId: string, nowIso: string): boolean {
  const [facts] = sql.all(
    `SELECT count(*) AS n, sum(ended_at IS NULL) AS live, min(failure_at) AS first, max(failure_at) AS last,
       (SELECT ended_at FROM incidents WHERE org_id = ?1 AND incident_id = ?2) AS was_ended
     FROM incident_failures WHERE org_id = ?1 AND incident_id = ?2`,
    [orgId, incidentId],
  );
  if (!facts || Number(facts.n) === 0) {
    sql.run('DELETE FROM incidents WHERE org_id = ? AND incident_id = ?', [orgId, incidentId]);
    return false;
  }
  const live = Number(facts.live) > 0;
  const wasEnded = facts.was_ended !== null && facts.was_ended !== undefined;
  sql.run(
    `UPDATE incidents SET first_failure_at = ?, last_failure_at = ?, ended_at = ?
     WHERE org_id = ? AND incident_id = ?`,
    [
      String(facts.first),
      String(facts.last),
      live ? null : wasEnded ? String(facts.was_ended) : nowIso,
      orgId,
      incidentId,
    ],
  );
  return !live && !wasEnded;
}

/** Drops incidents that ended before `before` (RFC 3339), with their failures. */
function forgetOldIncidents(sql: IncidentSql, orgId: string, before: string): void {
  sql.run(
    `DELETE FROM incident_failures WHERE org_id = ?1 AND incident_id IN (
       SELECT incident_id FROM incidents WHERE org_id = ?1 AND ended_at IS NOT NULL AND ended_at < ?2)`,
    [orgId, before],
  );
  sql.run('DELETE FROM incidents WHERE org_id = ? AND ended_at IS NOT NULL AND ended_at < ?', [
    orgId,
    before,
  ]);
}

/** The incident a failure (live or over) belongs to, or null when none holds it. */
export function incidentOfFailure(
  sql: IncidentSql,
  orgId: string,
  datasetId: string,
  deliveryId: string,
  status: string,
): string | null {
  const [row] = sql.all(
    `SELECT incident_id FROM incident_failures
     WHERE org_id = ? AND dataset_id = ? AND delivery_id = ? AND status = ?`,
    [orgId, datasetId, deliveryId, status],
  );
  return row === undefined ? null : String(row.incident_id);
}

/**
 * Incidents as a file gave them, made to hold what a sync's keep: no time after `now` (a file from a
 * machine whose clock ran ahead), no failure after the mirror learned of it, and each incident's first and
 * last failure time those of its failures. Call in the import's transaction, before refreshIncidents.
 */
export function settleGivenIncidents(sql: IncidentSql, orgId: string, now: Date): void {
  const at = now.toISOString();
  sql.run(
    `UPDATE incident_failures SET learned_at = min(learned_at, ?2),
       ended_at = CASE WHEN ended_at IS NULL THEN NULL ELSE min(ended_at, ?2) END
     WHERE org_id = ?1`,
    [orgId, at],
  );
  sql.run(`UPDATE incident_failures SET failure_at = min(failure_at, learned_at) WHERE org_id = ?`, [orgId]);
  sql.run(
    `UPDATE incidents SET opened_at = min(opened_at, ?2),
       ended_at = CASE WHEN ended_at IS NULL THEN NULL ELSE min(ended_at, ?2) END,
       first_failure_at = coalesce((SELECT min(f.failure_at) FROM incident_failures f
         WHERE f.org_id = incidents.org_id AND f.incident_id = incidents.incident_id), first_failure_at),
       last_failure_at = coalesce((SELECT max(f.failure_at) FROM incident_failures f
         WHERE f.org_id = incidents.org_id AND f.incident_id = incidents.incident_id), last_failure_at)
     WHERE org_id = ?1`,
    [orgId, at],
  );
}
