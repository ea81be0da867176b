/**
 * Format characters in stored and typed text (bidi overrides and isolates, zero-width characters, line
 * and paragraph separators) never reach the terminal raw: a U+202E in a supplier's name, a note or a
 * name would print the rest of the line backwards. Lines escape them as `\u202e` (`printable`), JSON
 * output escapes them too and stays the same JSON value (`printableJson`), the handoff's Markdown
 * drops them; errors that quote an input escape them as well.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../electron/cli/io';
import { cliLogger } from '../../../electron/cli/logger';
import type { AcknowledgementView } from '../../../shared/causes';
import type { DatasetRecord } from '../../../shared/schemas';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { fixtureRecords } from '../../helpers/fixtures';

afterEach(() => removeTempDirs());

/** Any format character or separator, raw. */
const RAW = /[\p{Cf}\p{Zl}\p{Zp}]/u;

const SUPPLIER = 'Har\u202Ebor Data';
const BY = 'al\u2066ice\u200B';
const NOTE = 'ticket \u202E4711\u2028 \u{E0001}';

/** A data directory with org acme: one MISSING dataset whose supplier's name holds a U+202E. */
async function seeded(): Promise<string> {
  const dataDir = tempDir('dh-format-');
  const base = fixtureRecords(1, 3, 'ds-rlo')[0]!;
  const dataset: DatasetRecord = {
    ...base,
    datasetId: 'ds-rlo',
    datasetName: 'Quotes \u202Eevil',
    supplier: { id: 'SUP-2', name: SUPPLIER },
    deliveryId: 'ds-rlo-d1',
    latestDeliveryStatus: 'MISSING',
    deliveryEventList: [
      {
        ...base.deliveryEventList[0]!,
        status: 'MISSING',
        deliveryId: 'ds-rlo-d1',
        deliveryDeadline: '2026-11-21T04:00:00.000Z',
        deliveredAt: null,
      },
    ],
  };
  const file = join(dataDir, 'acme.json');
  writeFileSync(file, JSON.stringify({ datasets: [dataset], tasks: {} }));
  const imported = await cli(['import', '--org', 'acme', file, '--data-dir', dataDir]);
  expect(imported.code, imported.stderr).toBe(0);
  return dataDir;
}

describe('format characters on the command line', () => {
  it('ack and unack lines escape them; --json escapes them and keeps the value', async () => {
    const dataDir = await seeded();
    const acked = await cli(['ack', 'ds-rlo', '--by', BY, '--note', NOTE, '--data-dir', dataDir]);
    expect(acked).toMatchObject({ code: 0, stderr: '' });
    expect(acked.stdout).not.toMatch(RAW);
    expect(acked.stdout).toBe(
      'acknowledged ds-rlo (delivery ds-rlo-d1, MISSING from Har\\u202ebor Data) by al\\u2066ice\\u200b: ' +
        '"ticket \\u202e4711\\u2028 \\udb40\\udc01"\n',
    );

    const withdrawn = await cli(['unack', 'ds-rlo', '--json', '--data-dir', dataDir]);
    expect(withdrawn.code, withdrawn.stderr).toBe(0);
    expect(withdrawn.stdout).not.toMatch(RAW);
    const [ack] = JSON.parse(withdrawn.stdout) as AcknowledgementView[];
    expect(ack).toMatchObject({ by: BY, note: NOTE });
  });

  it('the handoff escapes them in JSON and drops them in Markdown', async () => {
    const dataDir = await seeded();
    expect((await cli(['ack', 'ds-rlo', '--by', BY, '--note', NOTE, '--data-dir', dataDir])).code).toBe(0);
    const json = await cli(['handoff', '--since', '8h', '--format', 'json', '--data-dir', dataDir]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).not.toMatch(RAW);
    const report = JSON.parse(json.stdout) as { missing: { supplierName: string; datasetName: string }[] };
    expect(report.missing[0]).toMatchObject({ supplierName: SUPPLIER, datasetName: 'Quotes \u202Eevil' });
    const markdown = await cli(['handoff', '--since', '8h', '--data-dir', dataDir]);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toContain('Quotes evil');
    expect(markdown.stdout).not.toMatch(RAW);
  });

  it("serve's JSON log lines escape them and stay the same JSON", () => {
    let stderr = '';
    const logger = cliLogger({
      env: {},
      stderr: (text: string) => void (stderr += text),
    } as unknown as CliIo);
    logger.warn({ error: `cannot reach ${SUPPLIER}` }, `sync of ${BY} failed`);
    expect(stderr).not.toMatch(RAW);
    expect(JSON.parse(stderr)).toMatchObject({
      error: `cannot reach ${SUPPLIER}`,
      msg: `sync of ${BY} failed`,
    });
  });

  it('key lists and errors that quote an input escape them', async () => {
    const dataDir = await seeded();
    const created = await cli([
      'keys',
      'create',
      '--org',
      'acme',
      '--name',
      'ci\u202Ebot',
      '--data-dir',
      dataDir,
    ]);
    expect(created.code, created.stderr).toBe(0);
    const table = await cli(['keys', 'list', '--data-dir', dataDir]);
    expect(table.stdout).toContain('ci\\u202ebot');
    const list = await cli(['keys', 'list', '--json', '--data-dir', dataDir]);
    for (const output of [created.stderr, table.stdout, list.stdout]) expect(output).not.toMatch(RAW);
    expect((JSON.parse(list.stdout) as { name: string }[])[0]!.name).toBe('ci\u202Ebot');

    const unknown = await cli(['ack', 'ds-\u202Enowhere', '--data-dir', dataDir]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).not.toMatch(RAW);
    expect(unknown.stderr).toContain('ds-\\u202enowhere');
  });
});
