/**
 * How `keys list` prints keys: its own file, so the CLI says "no keys" of a data directory without a
 * database without loading the store or the commands (cli/control.ts, `emptyStore`).
 */
import type { ApiKeyInfo } from '../../store/tables/apiKeys';
import { printableJson } from '../../store/tables/orgs';
import type { CommandOutput } from '../command';
import { printTable } from './table';

/** A table on stdout (never the secrets), JSON with `json`, or a hint on stderr when there is none. */
export function printKeys(out: CommandOutput, list: readonly ApiKeyInfo[], json: boolean): void {
  if (json) {
    out.stdout(`${printableJson(list)}\n`);
    return;
  }
  if (list.length === 0) {
    out.stderr('No keys yet: create one with `dataset-health keys create --org <org>`.\n');
    return;
  }
  printTable(out, [
    ['ID', 'ORG', 'NAME', 'CREATED', 'LAST USED', 'REVOKED'],
    ...list.map((k) => [k.id, k.orgId, k.name, k.createdAt, k.lastUsedAt ?? '-', k.revokedAt ?? '-']),
  ]);
}
