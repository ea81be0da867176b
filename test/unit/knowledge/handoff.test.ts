/**
 * The shift handoff (docs/architecture.md#handoff): a scripted shift (test/helpers/handoffShift.ts) played through the
 * sync's own commits gives a report whose Markdown equals the golden file byte for byte; the report's
 * JSON shape; what counts as new, recovered and still failing; hostile names and notes that must not
 * break the Markdown; `since` as the CLI and the API read it.
 *
 * The golden file changes only deliberately: `UPDATE_GOLDEN=1 npx vitest run test/unit/knowledge/handoff.test.ts`
 * rewrites it, and the diff is reviewed like code.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assembleHandoff, type HandoffFacts } from '../../../electron/knowledge/handoff';
import { OnCallKnowledge } from '../../../electron/knowledge/service';
import { Store } from '../../../electron/store/database';
import type { Incident } from '../../../shared/causes';
import { type HandoffReport } from '../../../shared/handoff';
import { handoffMarkdown, markdownCode, markdownText } from '../../../shared/handoffMarkdown';
import { parseHandoffSince } from '../../../shared/handoffSince';
import { sourceState } from '../../helpers/alerts';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { SHIFT_END, SHIFT_ORG, SHIFT_START, playShift } from '../../helpers/handoffShift';

const GOLDEN = join(__dirname, '../../fixtures/handoff/shift.md');

let store: Store;

beforeEach(async () => {
  store = await Store.open({ dataDir: tempDir('dh-handoff-'), checkpoint: { openCheckpointDelayMs: 0 } });
});
afterEach(async () => {
  await store.close();
  removeTempDirs();
});

/** The instance's view: its source synced a minute ago (fresh: nothing is overdue). */
function knowledge(options: { offline?: boolean } = {}): OnCallKnowledge {
  return new OnCallKnowledge({
    store,
    now: () => SHIFT_END,
    sources: () => [
      sourceState({ orgId: SHIFT_ORG, sourceId: 'acme-remote', lastSuccessAt: '2026-11-26T13:59:00.000Z' }),
    ],
    ...options,
  });
}

async function shiftReport(options: { offline?: boolean } = {}): Promise<HandoffReport> {
  await playShift(store);
  return knowledge(options).handoff(SHIFT_ORG, SHIFT_START);
}

describe('the handoff of a scripted shift', () => {
  it('renders as the golden Markdown, byte for byte', async () => {
    const markdown = handoffMarkdown(await shiftReport());
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(GOLDEN, markdown);
    expect(markdown).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('says who failed, recovered, is still failing or missing, snoozed, at risk, and the outage', async () => {
    const report = await shiftReport();
    expect(Object.keys(report)).toEqual([
      'orgId',
      'orgName',
      'since',
      'generatedAt',
      'atRiskUntil',
      'summary',
      'newlyFailed',
      'recovered',
      'stillFailing',
      'missing',
      'overdue',
      'snoozed',
      'atRisk',
      'outages',
    ]);
    expect(report).toMatchObject({
      orgId: 'acme',
      orgName: 'Acme Markets',
      since: '2026-11-26T06:00:00.000Z',
      generatedAt: '2026-11-26T14:00:00.000Z',
      atRiskUntil: '2026-11-26T22:00:00.000Z',
      summary: {
        newlyFailed: 2,
        recovered: 1,
        stillFailing: 1,
        missing: 1,
        overdue: 0,
        snoozed: 1,
        atRisk: 1,
        outages: 1,
      },
    });
    // Newly failed: failed within the window (by failure time), newest first; still failing: the rest.
    expect(report.newlyFailed.map((trouble) => [trouble.datasetId, trouble.since])).toEqual([
      ['rates', '2026-11-26T12:58:00.000Z'],
      ['eq-prices', '2026-11-26T08:48:00.000Z'],
    ]);
    expect(report.stillFailing.map((trouble) => [trouble.datasetId, trouble.isNew])).toEqual([
      ['fx-rates', false],
    ]);
    const eq = report.newlyFailed[1]!;
    expect(eq).toMatchObject({
      causeId: 'ingest:E_AUTH_FAILED',
      causeTitle: 'Ingest failed: E_AUTH_FAILED',
      message: 'SFTP login refused for user acme',
      deliveryId: 'eq-prices-26',
      acknowledgement: { by: 'alex', note: 'Vendor ticket 4411 opened; key expires *today*' },
      // The withdrawn acknowledgement's note stays told; the holding one's is its own.
      notes: [{ at: '2026-11-26T09:10:00.000Z', by: 'sam', text: 'Rotating the key | see runbook step 3' }],
    });
    expect(report.newlyFailed[0]).toMatchObject({ causeId: 'unknown', acknowledgement: null, notes: [] });
    expect(report.recovered).toEqual([
      {
        datasetId: 'credit',
        datasetName: 'Credit Ratings',
        supplierId: 'SUP-1',
        supplierName: 'Bluefin Exchange Feeds',
        dataProductName: 'Credit Ratings',
        was: 'FAILED',
        status: 'HEALTHY',
        // When it delivered healthy (10:20), not when the mirror synced it (10:30).
        recoveredAt: '2026-11-26T10:20:00.000Z',
      },
    ]);
    expect(report.missing).toMatchObject([{ datasetId: 'bonds', causeId: 'missing:SUP-2', isNew: false }]);
    expect(report.snoozed).toMatchObject([
      { datasetId: 'bonds', kind: '4h', until: '2026-11-26T16:00:00.000Z' },
    ]);
    expect(report.atRisk.map((deadline) => [deadline.datasetId, deadline.deadline])).toEqual([
      ['index', '2026-11-26T17:00:00.000Z'],
    ]);
    expect(report.outages).toEqual([
      {
        sourceId: 'acme-remote',
        sourceName: 'Acme remote',
        lostAt: '2026-11-26T11:30:00.000Z',
        regainedAt: '2026-11-26T12:15:00.000Z',
        lastSuccessAt: '2026-11-26T11:00:00.000Z',
        imported: false,
      },
    ]);
    expect(report.overdue).toEqual({
      known: true,
      stale: false,
      lastSuccessAt: '2026-11-26T13:59:00.000Z',
      deadlines: 0,
      datasets: [],
    });
    // The JSON is the report itself: it survives a round trip unchanged.
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });

  it('without a running instance, overdue is said to be unknown rather than none', async () => {
    const report = await shiftReport({ offline: true });
    expect(report.overdue).toEqual({
      known: false,
      stale: false,
      lastSuccessAt: null,
      deadlines: 0,
      datasets: [],
    });
    expect(handoffMarkdown(report)).toContain(
      '- Not known here: only a running instance that syncs this org',
    );
    // A running instance with no source for the org cannot tell either (an imported org is never synced).
    const unsynced = new OnCallKnowledge({ store, now: () => SHIFT_END, sources: () => [] });
    expect((await unsynced.handoff(SHIFT_ORG, SHIFT_START)).overdue.known).toBe(false);
  });

  it('while the data is stale, overdue datasets are listed with their names, newest first', async () => {
    await playShift(store);
    // The next morning, nothing synced since 11:00 yesterday: each daily deadline since then is overdue.
    const stale = new OnCallKnowledge({
      store,
      now: () => new Date('2026-11-27T08:00:00.000Z'),
      sources: () => [sourceState({ orgId: SHIFT_ORG, lastSuccessAt: '2026-11-26T11:00:00.000Z' })],
    });
    const report = await stale.handoff(SHIFT_ORG, SHIFT_START);
    expect(report.overdue).toMatchObject({ known: true, stale: true, deadlines: 5 });
    expect(
      report.overdue.datasets.map(({ datasetId, datasetName, since }) => [datasetId, datasetName, since]),
    ).toEqual([
      ['credit', 'Credit Ratings', '2026-11-27T07:00:00.000Z'],
      ['eq-prices', 'EMEA Equity Prices EOD', '2026-11-27T06:30:00.000Z'],
      ['fx-rates', 'APAC FX Rates', '2026-11-27T04:30:00.000Z'],
      ['bonds', 'İstanbul Bonds', '2026-11-27T01:00:00.000Z'],
      ['index', 'Index Levels', '2026-11-26T17:00:00.000Z'],
    ]);
    expect(handoffMarkdown(report)).toContain(
      '- **Index Levels** `index` (Harbor Data) — 1 deadline passed since 2026-11-26 17:00 UTC',
    );
  });

  it('a dataset FAILED when the window began and HEALTHY since is recovered (by its delivery’s time)', async () => {
    await playShift(store);
    const report = await knowledge().handoff(SHIFT_ORG, new Date('2026-11-26T08:00:00.000Z'));
    expect(report.recovered).toMatchObject([
      { datasetId: 'credit', was: 'FAILED', status: 'HEALTHY', recoveredAt: '2026-11-26T10:20:00.000Z' },
    ]);
    // eq-prices failed at 08:48, within this window too; fx-rates and bonds were troubled before it and still are.
    expect(report.newlyFailed.map((trouble) => trouble.datasetId)).toEqual(['rates', 'eq-prices']);
    expect(report.stillFailing.map((trouble) => trouble.datasetId)).toEqual(['fx-rates']);
  });

  it('a window that starts after everything is quiet: nothing new, nothing recovered, the rest still told', async () => {
    await playShift(store);
    const report = await knowledge().handoff(SHIFT_ORG, new Date('2026-11-26T13:30:00.000Z'));
    expect(report.summary).toMatchObject({
      newlyFailed: 0,
      recovered: 0,
      stillFailing: 3,
      missing: 1,
      outages: 0,
    });
    expect(handoffMarkdown(report)).toContain('## Newly failed (0)\n\n- None.\n');
  });
});

// --- hostile text --------------------------------------------------------------------------------

const HOSTILE = [
  'pipe | in a table',
  '*bold* and _em_ and **strong**',
  '<b>html</b> <script>alert(1)</script>',
  'line one\nline two\r\n# heading?\n- list?',
  '`code` and ``double``',
  '[link](https://evil.example) ![img](x)',
  '~~strike~~ &amp; &lt;',
  'back\\slash\\',
  'separator\u2028para\u2029bidi\u202eevil',
  '   ',
];

function troubleFacts(name: string, note: string): HandoffFacts {
  const acknowledgement = {
    orgId: 'acme',
    datasetId: name,
    deliveryId: 'd1',
    status: 'FAILED',
    causeId: null,
    note,
    by: name,
    at: '2026-11-26T09:00:00.000Z',
    endedAt: null,
    endReason: null,
  };
  const cause: Incident = {
    incidentId: 'inc-0000000000',
    causeId: `ingest:${name}`,
    kind: 'failed',
    title: `Ingest failed: ${name}`,
    stage: 'ingest',
    shortCode: name,
    count: 1,
    unacknowledged: 0,
    recovered: 0,
    suppliers: [],
    firstFailureAt: '2026-11-26T08:00:00.000Z',
    lastFailureAt: '2026-11-26T08:00:00.000Z',
    endedAt: null,
    representative: null,
    datasets: [
      {
        datasetId: name,
        datasetName: name,
        dataProductName: name,
        supplierId: name,
        supplierName: name,
        status: 'FAILED',
        deliveryId: 'd1',
        since: '2026-11-26T08:00:00.000Z',
        message: note,
        acknowledgement,
      },
    ],
  };
  return {
    orgId: 'acme',
    orgName: name,
    since: Date.parse('2026-11-26T06:00:00.000Z'),
    now: Date.parse('2026-11-26T14:00:00.000Z'),
    datasets: new Map(),
    incidents: [cause],
    recoveries: [],
    statusAtStart: new Map(),
    entries: [{ datasetId: name, at: Date.parse('2026-11-26T08:00:00.000Z'), from: 'HEALTHY', to: 'FAILED' }],
    notes: [{ datasetId: name, at: '2026-11-26T08:30:00.000Z', by: name, text: note }],
    overdue: null,
    snoozes: [],
    upcoming: [],
    outages: [
      {
        sourceId: name,
        sourceName: name,
        lostAt: '2026-11-26T07:00:00.000Z',
        regainedAt: null,
        lastSuccessAt: null,
        imported: false,
      },
    ],
  };
}

/** Inline text as CommonMark reads it: no unescaped markup character outside code spans. */
function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)(?:(?!\1).)*?\1/g, '');
}

describe('a long shift in chat', () => {
  it('keeps the 30 newest of a long section and says how many older ones it left out', async () => {
    const report = await shiftReport();
    const model = report.stillFailing[0]!;
    // 45 still failing, newest first as the report lists them: one an hour back from 05:00.
    const stillFailing = Array.from({ length: 45 }, (_, i) => ({
      ...model,
      datasetId: `ds-${String(i).padStart(2, '0')}`,
      since: new Date(Date.parse('2026-11-26T05:00:00.000Z') - i * 3_600_000).toISOString(),
    }));
    const markdown = handoffMarkdown({
      ...report,
      stillFailing,
      summary: { ...report.summary, stillFailing: 45 },
    });
    const lines = markdown.split('\n');
    const start = lines.indexOf('## Still failing (45)');
    const items = lines.slice(start + 2, lines.indexOf('', start + 2));
    expect(items).toHaveLength(31);
    expect(items[0]).toContain('`ds-00`');
    expect(items[29]).toContain('`ds-29`');
    expect(items[30]).toBe(
      '- … and 15 older not listed here (all of them: the Handoff view, or `handoff --format json`)',
    );
  });

  it('lists at-risk deadlines one line per dataset and at most 30 items a section, saying how many more', async () => {
    const report = await shiftReport();
    const model = report.atRisk[0]!;
    // An hourly dataset at risk eight times, and 40 others at risk once each.
    const hourly = Array.from({ length: 8 }, (_, i) => ({
      ...model,
      datasetId: 'hourly',
      datasetName: 'Hourly',
      deadline: new Date(Date.parse(model.deadline) + i * 3_600_000).toISOString(),
    }));
    const others = Array.from({ length: 40 }, (_, i) => ({
      ...model,
      datasetId: `ds-${String(i).padStart(2, '0')}`,
      datasetName: `Dataset ${i}`,
      deadline: new Date(Date.parse(model.deadline) + 60_000 + i).toISOString(),
    }));
    const atRisk = [hourly[0]!, ...others, ...hourly.slice(1)];
    const markdown = handoffMarkdown({
      ...report,
      atRisk,
      summary: { ...report.summary, atRisk: 41 },
    });
    const lines = markdown.split('\n');
    const start = lines.findIndex((line) => line.startsWith('## At risk in the next 8 h'));
    expect(lines[start]).toBe('## At risk in the next 8 h (41)');
    const items = lines.slice(start + 2, lines.indexOf('', start + 2));
    expect(items).toHaveLength(31);
    expect(items[0]).toMatch(/ and 7 later: \*\*Hourly\*\* `hourly`/);
    expect(items[30]).toBe(
      '- … and 11 later not listed here (all of them: the Handoff view, or `handoff --format json`)',
    );
    // The JSON keeps every deadline.
    expect(atRisk).toHaveLength(48);
  });
});

describe('hostile names and notes in the Markdown', () => {
  it.each(HOSTILE)('%j stays on its lines, escaped, with no HTML', (text) => {
    const markdown = handoffMarkdown(assembleHandoff(troubleFacts(text, text)));
    const lines = markdown.split('\n');
    // The structure is the same whatever the text: headings and bullets only.
    expect(lines.filter((line) => line.startsWith('#'))).toHaveLength(9);
    for (const line of lines) {
      expect(line).toMatch(/^(#{1,2} |- | {2}- |\*\*Summary|From |$)/);
      const prose = withoutCodeSpans(line);
      expect(prose).not.toMatch(/(?<!\\)[<>|]/);
      expect(prose).not.toMatch(/[\u2028\u2029\u202e\r]/);
    }
    // HTML only as code (a dataset id in backticks), never as markup.
    expect(lines.map(withoutCodeSpans).join('\n')).not.toMatch(/(?<!\\)<[a-z/]/);
  });

  it('escapes each significant character, and a code span holds any backticks', () => {
    expect(markdownText('a|b*c<e>f`g[h]i~j&k\\l')).toBe('a\\|b\\*c\\<e\\>f\\`g\\[h\\]i\\~j\\&k\\\\l');
    // Underscores inside a word cannot open emphasis and stay as written; at a word's edge they are escaped.
    expect(markdownText('E_AUTH_FAILED _em_ __x__ Straße_Daten')).toBe(
      'E_AUTH_FAILED \\_em\\_ \\_\\_x\\_\\_ Straße_Daten',
    );
    expect(markdownText('one\ntwo\r\n\tthree')).toBe('one two three');
    expect(markdownCode('ds-1')).toBe('`ds-1`');
    expect(markdownCode('a`b')).toBe('``a`b``');
    expect(markdownCode('`edge`')).toBe('`` `edge` ``');
  });

  it('the same report gives the same bytes', () => {
    const facts = troubleFacts('x', 'y');
    expect(handoffMarkdown(assembleHandoff(facts))).toBe(handoffMarkdown(assembleHandoff(facts)));
  });
});

describe('since', () => {
  const now = new Date('2026-11-26T14:00:00.000Z');
  it.each([
    ['8h', '2026-11-26T06:00:00.000Z'],
    ['90m', '2026-11-26T12:30:00.000Z'],
    ['2d', '2026-11-24T14:00:00.000Z'],
    ['2026-11-26T06:00:00Z', '2026-11-26T06:00:00.000Z'],
    ['2026-11-26T07:00:00+01:00', '2026-11-26T06:00:00.000Z'],
    ['2026-11-26T06:00:00.250Z', '2026-11-26T06:00:00.250Z'],
    ['2026-11-26T14:00:00Z', '2026-11-26T14:00:00.000Z'],
    // A year at most, as a duration; any time of years 0000–9999, as a time.
    ['366d', '2025-11-25T14:00:00.000Z'],
    ['8784h', '2025-11-25T14:00:00.000Z'],
    ['527040m', '2025-11-25T14:00:00.000Z'],
    ['0000-01-01T00:00:00Z', '0000-01-01T00:00:00.000Z'],
    ['0000-01-01T00:30:00+00:30', '0000-01-01T00:00:00.000Z'],
  ])('%s → %s', (text, expected) => {
    expect(parseHandoffSince(text, now).toISOString()).toBe(expected);
  });

  it.each([
    ['0h', /'0h' is an empty window: give a duration back from now/],
    ['8', /'8' is not a duration back from now \(90m, 8h, 2d\) or an RFC 3339 time/],
    ['8 hours', /is not a duration/],
    ['-8h', /is not a duration/],
    ['2026-11-26', /is not a duration/],
    ['2026-11-26T06:00:00', /is not a duration/],
    ['2026-02-30T06:00:00Z', /is not a duration/],
    ['', /is not a duration/],
    ['2026-11-26T14:00:01Z', /'2026-11-26T14:00:01Z' is in the future \(now is 2026-11-26T14:00:00.000Z\)/],
    // Was "since -000711-…": years before 0000 have no RFC 3339 form.
    ['999999d', /'999999d' is over a year back \(at most 366d, 8784h or 527040m\): for longer, give a time/],
    ['367d', /'367d' is over a year back/],
    ['8785h', /'8785h' is over a year back/],
    ['527041m', /'527041m' is over a year back/],
    [
      '0000-01-01T00:00:00+01:00',
      /'0000-01-01T00:00:00\+01:00' is outside the times this app keeps \(from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z in UTC\)/,
    ],
  ])('%j is refused: %s', (text, message) => {
    expect(() => parseHandoffSince(text, now)).toThrow(message);
  });

  it('a year back from early in year 0000 would be before it: refused, not written as -000001', () => {
    expect(() => parseHandoffSince('2d', new Date('0000-01-01T12:00:00.000Z'))).toThrow(
      "'2d' back from now is before year 0000: give a time",
    );
  });
});
