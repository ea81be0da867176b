/** `serve --on-failed CMD`: real commands through the shell, the announcement as JSON on stdin. */
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AnnouncementHook, hookFailure } from '../../../electron/alerts/hook';
import type { Announcement } from '../../../electron/alerts/types';
import { removeTempDirs, tempDir } from '../../helpers/cli';

afterEach(() => removeTempDirs());

const announcement = (n: number): Announcement => ({
  kind: 'failed',
  dataset: { orgId: 'acme', datasetId: `ds-${n}`, datasetName: `Dataset ${n}`, deliveryId: `dlv-${n}` },
  reason: { stage: 'normalize', shortCode: 'E_SCHEMA', message: 'schema changed' },
  incidentId: 'inc-0a1b2c3d4e',
  causeId: 'normalize:E_SCHEMA',
  title: `FAILED: Dataset ${n}`,
  body: 'Normalize failed: E_SCHEMA — schema changed',
  target: { view: 'delivery', orgId: 'acme', datasetId: `ds-${n}`, deliveryId: `dlv-${n}` },
  at: '2026-11-21T12:00:00.000Z',
});

const node = JSON.stringify(process.execPath);

describe('announcement hook', () => {
  it('runs the command once per announcement, in order, with the announcement as JSON on stdin', async () => {
    const out = join(tempDir('dh-hook-'), 'alerts.jsonl');
    // Slow first, fast second: still in order, because runs never overlap.
    const script = `const d=require('fs');let t='';process.stdin.on('data',c=>t+=c).on('end',()=>{const a=JSON.parse(t);setTimeout(()=>d.appendFileSync(process.env.OUT,a.dataset.datasetId+'\\n'),a.dataset.datasetId==='ds-1'?300:0)})`;
    const hook = new AnnouncementHook(`${node} -e ${JSON.stringify(script)}`, {
      env: { ...process.env, OUT: out },
    });
    const results = await Promise.all([hook.run(announcement(1)), hook.run(announcement(2))]);
    expect(results.map((r) => r.code)).toEqual([0, 0]);
    expect(readFileSync(out, 'utf8')).toBe('ds-1\nds-2\n');
  });

  it('passes the whole announcement: the documented fields and the cause of each kind', async () => {
    const out = join(tempDir('dh-hook-'), 'alerts.jsonl');
    const hook = new AnnouncementHook('cat >> "$OUT"', { env: { ...process.env, OUT: out } });
    const cause: Announcement = {
      kind: 'cause',
      orgId: 'acme',
      incidentId: 'inc-5f6e7d8c9b',
      causeId: 'ingest:E_AUTH_FAILED',
      causeTitle: 'Ingest failed: E_AUTH_FAILED',
      suppliers: [{ id: 'sup-1', name: 'Bluefin Exchange Feeds', count: 9 }],
      datasets: [{ orgId: 'acme', datasetId: 'ds-1', datasetName: 'Dataset 1', deliveryId: 'dlv-1' }],
      more: false,
      failingNow: 9,
      title: 'Ingest failed: E_AUTH_FAILED',
      body: '9 datasets from Bluefin Exchange Feeds',
      target: { view: 'triage', orgId: 'acme', incidentId: 'inc-5f6e7d8c9b' },
      at: '2026-11-21T12:00:00.000Z',
    };
    await hook.run(announcement(1));
    await hook.run(cause);
    const [failed, grouped] = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(failed).toEqual(announcement(1));
    expect(Object.keys(failed!)).toEqual(
      expect.arrayContaining([
        'kind',
        'dataset',
        'reason',
        'title',
        'body',
        'target',
        'at',
        'incidentId',
        'causeId',
      ]),
    );
    expect(grouped).toEqual(cause);
  });

  it('reports a failing command with its exit code and the end of its stderr', async () => {
    const heard: string[] = [];
    const hook = new AnnouncementHook('echo "pager is down" >&2; exit 3', {
      onResult: (a, result) => heard.push(`${a.title}: ${result.code} ${result.stderr.trim()}`),
    });
    const result = await hook.run(announcement(1));
    expect(result).toMatchObject({ code: 3, timedOut: false, error: null });
    expect(hookFailure(result)).toBe('exited with 3: pager is down');
    expect(heard).toEqual(['FAILED: Dataset 1: 3 pager is down']);
  });

  it('kills a command that runs past its time, with what it started', async () => {
    const hook = new AnnouncementHook('sleep 30 & wait', { timeoutMs: 200 });
    const started = Date.now();
    const result = await hook.run(announcement(1));
    expect(result.timedOut).toBe(true);
    expect(hookFailure(result)).toBe('timed out');
    expect(Date.now() - started).toBeLessThan(10_000);
    await hook.idle();
  });

  it('does not fail on a command that ignores its stdin', async () => {
    const hook = new AnnouncementHook('true');
    const result = await hook.run(announcement(1));
    expect(result.code).toBe(0);
    expect(hookFailure(result)).toBeNull();
  });
});
