/** One dataset by id, or by its v1 `legacyDatasetId` when no dataset has that id (docs/api.md#one-dataset). */
import type { DatasetRecord, DeadlineConfig } from '../../shared/schemas';
import { rowsForIds } from './idSlices';
import type { Store } from '../store/database';
import { recordJsonSql } from './recordSql';
import { completeRunDetails } from './runDetails';

export interface DatasetRequest {
  orgId: string;
  datasetId: string;
  latestDeliveriesCount: number;
  includeRunDetails: boolean;
}

function recordSql(includeRunDetails: boolean, match: 'dataset_id' | 'legacy_dataset_id'): string {
  return `SELECT ${recordJsonSql({ includeRunDetails, eventLimit: '?' })}
    FROM datasets d
    WHERE d.org_id = ? AND d.${match} = ? ORDER BY d.dataset_id LIMIT 1`;
}

const SQL = {
  plain: { id: recordSql(false, 'dataset_id'), legacy: recordSql(false, 'legacy_dataset_id') },
  runs: { id: recordSql(true, 'dataset_id'), legacy: recordSql(true, 'legacy_dataset_id') },
};

/** The record's JSON text, or null when the org has no such dataset. */
export function getDataset(store: Store, request: DatasetRequest): string | null {
  const sql = request.includeRunDetails ? SQL.runs : SQL.plain;
  const params = [request.latestDeliveriesCount, request.orgId, request.datasetId];
  const json = store.value<string>(sql.id, params) ?? store.value<string>(sql.legacy, params) ?? null;
  if (json === null || !request.includeRunDetails) return json;
  return JSON.stringify(completeRunDetails(store, request.orgId, JSON.parse(json) as DatasetRecord));
}

/** The dataset's name; null when it has none or the org has no such dataset. */
export function datasetName(store: Store, orgId: string, datasetId: string): string | null {
  return (
    store.value<string | null>('SELECT name FROM datasets WHERE org_id = ? AND dataset_id = ?', [
      orgId,
      datasetId,
    ]) ?? null
  );
}

/**
 * The datasetId of the org's dataset with this id, else of the one whose `legacyDatasetId` it is (the
 * same choice as `getDataset`); null when the org has neither.
 */
export function resolveDatasetId(store: Store, orgId: string, datasetId: string): string | null {
  return (
    store.value<string>('SELECT dataset_id FROM datasets WHERE org_id = ? AND dataset_id = ?', [
      orgId,
      datasetId,
    ]) ??
    store.value<string>(
      'SELECT dataset_id FROM datasets WHERE org_id = ? AND legacy_dataset_id = ? ORDER BY dataset_id LIMIT 1',
      [orgId, datasetId],
    ) ??
    null
  );
}

/** The current deadline config of each of these datasets of the org (the deadline clock reads them). */
export function deadlineConfigs(
  store: Store,
  orgId: string,
  datasetIds: readonly string[],
): Map<string, DeadlineConfig> {
  const configs = new Map<string, DeadlineConfig>();
  if (datasetIds.length === 0) return configs;
  for (const row of store.all(
    `SELECT d.dataset_id, c.json FROM datasets d JOIN configs c ON c.id = d.config_id
     WHERE d.org_id = ? AND d.dataset_id IN (${datasetIds.map(() => '?').join(', ')})`,
    [orgId, ...datasetIds],
  ))
    configs.set(String(row.dataset_id), JSON.parse(String(row.json)) as DeadlineConfig);
  return configs;
}

/** What a notification rule looks at in a dataset besides its failure: its name, supplier and data product. */
export interface DatasetFacts {
  name: string | null;
  supplierId: string | null;
  supplierName: string | null;
  dataProductId: string | null;
  dataProductName: string | null;
}

/** The facts of these datasets of the org, by id (a dataset gone from the mirror is absent). */
export function datasetFacts(
  store: Store,
  orgId: string,
  datasetIds: readonly string[],
): Map<string, DatasetFacts> {
  const facts = new Map<string, DatasetFacts>();
  const text = (value: unknown): string | null =>
    value === null || value === undefined ? null : String(value);
  for (const row of rowsForIds(
    store,
    orgId,
    datasetIds,
    (ids) => `SELECT dataset_id, name, supplier_id, supplier_name, data_product_id, data_product_name
      FROM datasets WHERE org_id = ? AND dataset_id IN (${ids})`,
  ))
    facts.set(String(row.dataset_id), {
      name: text(row.name),
      supplierId: text(row.supplier_id),
      supplierName: text(row.supplier_name),
      dataProductId: text(row.data_product_id),
      dataProductName: text(row.data_product_name),
    });
  return facts;
}
