/**
 * `GET /local/v1/handoff` (docs/architecture.md#handoff, issue 14 point 6): the scripted shift's handoff over HTTP — the
 * body equals the engine's report (and `format=md` its Markdown), `since` as a duration or an RFC 3339
 * time (default 8 h), every bad `since` or `format` a 400 naming the parameter; v2's keys, scoping,
 * HEAD, ETag, X-Synced-At and the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OnCallKnowledge } from '../../../electron/knowledge/service';
import { type HandoffReport, handoffFirstRows } from '../../../shared/handoff';
import { handoffMarkdown } from '../../../shared/handoffMarkdown';
import { SHIFT_END, SHIFT_ORG, SHIFT_START, playShift } from '../../helpers/handoffShift';
import { type LocalFixture, localFixture } from '../../helpers/localApi';

let fixture: LocalFixture;
let expected: HandoffReport;

beforeAll(async () => {
  fixture = await localFixture({ now: SHIFT_END });
  await playShift(fixture.store);
  // What the engine answers (the server's own on-call layer has no sources either).
  const knowledge = new OnCallKnowledge({ store: fixture.store, now: () => SHIFT_END, sources: () => [] });
  expected = await knowledge.handoff(SHIFT_ORG, SHIFT_START);
});
afterAll(() => fixture.close());

async function report(path: string): Promise<HandoffReport> {
  const answer = await fixture.get(path);
  expect(answer.status, answer.body).toBe(200);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  return answer.json() as HandoffReport;
}

describe('GET /local/v1/handoff', () => {
  it('answers the engine’s report, by default for the last 8 hours', async () => {
    expect(expected.summary).toMatchObject({ newlyFailed: 2, recovered: 1, stillFailing: 1, outages: 1 });
    expect(await report('/local/v1/handoff')).toEqual(expected);
    for (const since of ['8h', '480m', '2026-11-26T06:00:00Z', '2026-11-26T07:00:00%2B01:00'])
      expect(await report(`/local/v1/handoff?since=${since}&format=json`)).toEqual(expected);
    // A shorter window: the failures of the morning are no longer new; who is failing now still is.
    const late = await report('/local/v1/handoff?since=30m');
    expect(late.since).toBe('2026-11-26T13:30:00.000Z');
    expect(late.summary).toMatchObject({ newlyFailed: 0, recovered: 0, stillFailing: 3, outages: 0 });
  });

  it('answers the same Markdown as the window and the CLI with format=md', async () => {
    const answer = await fixture.get('/local/v1/handoff?format=md');
    expect(answer.status, answer.body).toBe(200);
    expect(answer.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(answer.body).toBe(handoffMarkdown(expected));
    const etag = String(answer.headers.etag);
    expect((await fixture.get('/local/v1/handoff?format=md', { 'if-none-match': etag })).status).toBe(304);
  });

  it.each([
    ['yesterday', "since: 'yesterday' is not a duration back from now (90m, 8h, 2d) or an RFC 3339 time"],
    ['0h', "since: '0h' is an empty window"],
    ['999999d', "since: '999999d' is over a year back (at most 366d, 8784h or 527040m)"],
    ['0000-01-01T00:00:00%2B01:00', "since: '0000-01-01T00:00:00+01:00' is outside the times this app keeps"],
    ['-8h', "since: '-8h' is not a duration"],
    ['2026-11-26T06:00:00', "since: '2026-11-26T06:00:00' is not a duration"],
    ['2026-02-30T06:00:00Z', "since: '2026-02-30T06:00:00Z' is not a duration"],
    [
      '2026-11-26T14:00:01Z',
      "since: '2026-11-26T14:00:01Z' is in the future (now is 2026-11-26T14:00:00.000Z)",
    ],
    ['', "since: '' is not a duration"],
    ['8h&since=2h', 'since must be given once'],
    [`${'9'.repeat(101)}h`, 'since is too long: at most 100 characters'],
  ])('refuses since=%s with 400 naming since', async (value, message) => {
    const answer = await fixture.get(`/local/v1/handoff?since=${value}`);
    expect(answer.status, answer.body).toBe(400);
    const error = answer.json() as { code: string; field: string; message: string };
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'since' });
    expect(error.message).toContain(message);
  });

  it.each(['html', 'MD', '', 'md&format=json'])('refuses format=%s with 400 naming format', async (value) => {
    const answer = await fixture.get(`/local/v1/handoff?format=${value}`);
    expect(answer.status, answer.body).toBe(400);
    expect(answer.json()).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'format' });
    expect((answer.json() as { message: string }).message).toContain(
      'format must be given once: json or md (default json)',
    );
  });

  it('lists only the first rows of each section with rows=N, the summary counting all', async () => {
    expect(await report('/local/v1/handoff?rows=1')).toEqual(handoffFirstRows(expected, 1));
    expect((await report('/local/v1/handoff?rows=1')).newlyFailed).toHaveLength(1);
    expect(await report('/local/v1/handoff?rows=100000')).toEqual(expected);
  });

  it.each(['0', '1.5', '-1', 'all', '100001', '', '1&rows=2'])(
    'refuses rows=%s with 400 naming rows',
    async (value) => {
      const answer = await fixture.get(`/local/v1/handoff?rows=${value}`);
      expect(answer.status, answer.body).toBe(400);
      expect(answer.json()).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'rows' });
      expect((answer.json() as { message: string }).message).toContain(
        'rows must be given once: a whole number from 1 to 100000',
      );
    },
  );

  it('repeats its ETag for a relative since as the clock moves while the report is the same', async () => {
    const first = await fixture.get('/local/v1/handoff?since=8h');
    const markdown = await fixture.get('/local/v1/handoff?since=8h&format=md');
    fixture.clock.now = new Date(SHIFT_END.getTime() + 60_000);
    try {
      // The window starts a minute later and the report was made a minute later; what it says is the same.
      const later = await fixture.get('/local/v1/handoff?since=8h', {
        'if-none-match': String(first.headers.etag),
      });
      expect(later.status).toBe(304);
      const laterMarkdown = await fixture.get('/local/v1/handoff?since=8h&format=md', {
        'if-none-match': String(markdown.headers.etag),
      });
      expect(laterMarkdown.status).toBe(304);
      // The JSON's tag is not the Markdown's.
      expect(markdown.headers.etag).not.toBe(first.headers.etag);
      // A shorter window says less: another answer.
      const shorter = await fixture.get('/local/v1/handoff?since=30m', {
        'if-none-match': String(first.headers.etag),
      });
      expect(shorter.status).toBe(200);
    } finally {
      fixture.clock.now = SHIFT_END;
    }
  });

  it('keeps v2’s rules: a key is needed, its org only, HEAD, ETag and X-Synced-At, in the OpenAPI document', async () => {
    expect((await fixture.get('/local/v1/handoff', { authorization: '' })).status).toBe(401);
    const first = await fixture.get('/local/v1/handoff');
    expect(first.headers.etag).toBeDefined();
    expect(first.headers['x-synced-at']).toBe('2026-11-26T13:00:00.000Z');
    const again = await fixture.get('/local/v1/handoff', { 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    const head = await fixture.request('HEAD', '/local/v1/handoff');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    const other = await fixture.get('/local/v1/handoff', { authorization: `Bearer ${fixture.otherKey}` });
    expect(other.status, other.body).toBe(200);
    expect(other.json()).toMatchObject({ orgId: 'globex', summary: { stillFailing: 0, outages: 0 } });
    const openapi = await fixture.get('/v2/openapi.json', { authorization: '' });
    const paths = (openapi.json() as { paths: Record<string, { get?: { parameters?: { name: string }[] } }> })
      .paths;
    expect(paths['/local/v1/handoff']?.get?.parameters?.map((parameter) => parameter.name)).toEqual([
      'since',
      'format',
      'rows',
    ]);
  });
});
