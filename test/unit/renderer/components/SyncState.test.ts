/**
 * How the window says how far its data can be trusted: the stale banner (nothing when every source is
 * fresh, a warning when a source's data is older than three poll intervals, an error when its sync fails
 * or is stopped, and the "not signed in" help) and the sync status line in the header, both against a
 * fixed clock that the tests move.
 */
import { type VueWrapper, mount } from '@vue/test-utils';
import { NAlert, NTag } from 'naive-ui';
import { afterEach, describe, expect, it } from 'vitest';
import { type Ref, nextTick, ref } from 'vue';
import StaleBanner from '../../../../renderer/src/components/StaleBanner.vue';
import SyncStatus from '../../../../renderer/src/components/SyncStatus.vue';
import { CLOCK } from '../../../../renderer/src/lib/clock';
import { NOT_SIGNED_IN_HELP } from '../../../../renderer/src/lib/errors';
import { isolate } from '../../../../shared/isolate';
import type { OrgView } from '../../../../shared/views';
import type { SourceState } from '../../../../shared/sync';

const NOW = new Date('2026-11-21T04:41:00Z');
const MINUTE = 60_000;

/** `minutes` before NOW, as the engine writes times. */
const ago = (minutes: number): string => new Date(NOW.getTime() - minutes * MINUTE).toISOString();

/** A source polled every minute whose last cycle succeeded two minutes ago: fresh. */
function source(overrides: Partial<SourceState> = {}): SourceState {
  return {
    sourceId: 'src-prod',
    orgId: 'org-1',
    name: 'Production',
    phase: 'idle',
    activity: null,
    lastSuccessAt: ago(2),
    lastError: null,
    lastErrorAt: null,
    lastDurationMs: 1_200,
    lastCounts: null,
    nextRunAt: ago(-1),
    stopped: false,
    pollIntervalMs: MINUTE,
    ...overrides,
  };
}

const ORG: OrgView = { id: 'org-1', name: 'Acme', datasets: 1200, lastSyncedAt: null };

let clock: Ref<Date>;
let wrapper: VueWrapper | null = null;
afterEach(() => {
  wrapper?.unmount();
  wrapper = null;
});

function banner(states: SourceState[], error: string | null = null): VueWrapper {
  clock = ref(new Date(NOW));
  wrapper = mount(StaleBanner, {
    props: { states, error },
    global: { provide: { [CLOCK as symbol]: clock } },
  });
  return wrapper;
}

function syncStatus(states: SourceState[], org: OrgView | null = ORG): VueWrapper {
  clock = ref(new Date(NOW));
  wrapper = mount(SyncStatus, {
    props: { states, org },
    global: { provide: { [CLOCK as symbol]: clock } },
  });
  return wrapper;
}

/** Moves the window's clock on by `minutes` and lets it re-render. */
async function advance(minutes: number): Promise<void> {
  clock.value = new Date(clock.value.getTime() + minutes * MINUTE);
  await nextTick();
}

/** The banners shown, as the user reads them: kind, title and text. */
const alerts = (w: VueWrapper) =>
  w.findAllComponents(NAlert).map((alert) => ({
    type: alert.props('type'),
    role: alert.get('.n-alert').attributes('role'),
    title: alert.get('.n-alert-body__title').text(),
    text: alert.get('.n-alert-body__content').text(),
  }));

/** The sync status tags: text, hover title and kind. */
const tags = (w: VueWrapper) =>
  w.findAllComponents(NTag).map((tag) => ({
    text: tag.text(),
    title: tag.attributes('title'),
    type: tag.props('type'),
  }));

describe('StaleBanner', () => {
  it('shows nothing while every source is fresh', () => {
    const w = banner([source(), source({ sourceId: 'src-test', name: 'Test', lastSuccessAt: ago(0) })]);
    expect(alerts(w)).toEqual([]);
    expect(w.find('.banners').exists()).toBe(false);
  });

  it('counts a source as fresh up to exactly three poll intervals after its last success', () => {
    expect(alerts(banner([source({ lastSuccessAt: ago(3) })]))).toEqual([]);
    wrapper!.unmount();
    expect(alerts(banner([source({ lastSuccessAt: ago(3.01) })]))).toHaveLength(1);
  });

  it('warns, naming the source and when it last synced, once three poll intervals pass without a success', () => {
    const w = banner([source({ lastSuccessAt: ago(12) })]);
    expect(alerts(w)).toEqual([
      {
        type: 'warning',
        role: 'alert',
        title: 'Data from Production is stale',
        text: 'Last successful sync 12 minutes ago (expected every 1 min; stale after 3).',
      },
    ]);
  });

  it('says so when a source never synced successfully', () => {
    const w = banner([source({ lastSuccessAt: null, pollIntervalMs: 5 * MINUTE })]);
    expect(alerts(w)).toEqual([
      {
        type: 'warning',
        role: 'alert',
        title: 'Data from Production is stale',
        text: 'No successful sync yet (expected every 5 min; stale after 3).',
      },
    ]);
  });

  it('turns a fresh source stale when the clock passes three poll intervals, without new props', async () => {
    const w = banner([source({ lastSuccessAt: ago(2) })]);
    expect(alerts(w)).toEqual([]);
    await advance(1);
    expect(alerts(w)).toEqual([]);
    await advance(1);
    expect(alerts(w).map((a) => [a.type, a.text])).toEqual([
      ['warning', 'Last successful sync 4 minutes ago (expected every 1 min; stale after 3).'],
    ]);
    await advance(56);
    expect(alerts(w)[0]!.text).toBe('Last successful sync 1 hour ago (expected every 1 min; stale after 3).');
  });

  it('turns the warning off again when a new successful sync arrives', async () => {
    const w = banner([source({ lastSuccessAt: ago(12) })]);
    expect(alerts(w)).toHaveLength(1);
    await w.setProps({ states: [source({ lastSuccessAt: ago(0) })] });
    expect(alerts(w)).toEqual([]);
  });

  it("shows an error with the source's last error when its sync fails, however recent the data", () => {
    const w = banner([source({ phase: 'error', lastError: 'remote answered 500 Internal Server Error' })]);
    expect(alerts(w)).toEqual([
      {
        type: 'error',
        role: 'alert',
        title: 'Sync of Production is failing',
        text: 'remote answered 500 Internal Server Error — last successful sync 2 minutes ago; the data shown may be out of date.',
      },
    ]);
  });

  it('shows an error when the remote cannot be reached (offline)', () => {
    const w = banner([
      source({ phase: 'offline', lastError: 'getaddrinfo ENOTFOUND api.example.com', lastSuccessAt: null }),
    ]);
    expect(alerts(w)).toEqual([
      {
        type: 'error',
        role: 'alert',
        title: 'Sync of Production is failing',
        text: 'getaddrinfo ENOTFOUND api.example.com — no successful sync yet; the data shown may be out of date.',
      },
    ]);
  });

  it('says a failing sync failed even when it has no error text', () => {
    const w = banner([source({ phase: 'error', lastError: null })]);
    expect(alerts(w)[0]!.text).toBe(
      'the last sync failed — last successful sync 2 minutes ago; the data shown may be out of date.',
    );
  });

  it('shows a stopped source (e.g. a rejected API key) as stopped, with the reason', () => {
    const w = banner([source({ stopped: true, lastError: 'the API key was rejected (401)' })]);
    expect(alerts(w)).toEqual([
      {
        type: 'error',
        role: 'alert',
        title: 'Production is stopped',
        text: 'the API key was rejected (401) — last successful sync 2 minutes ago; the data shown may be out of date.',
      },
    ]);
  });

  it('shows one banner per source that is not fresh, and none for the fresh ones', () => {
    const w = banner([
      source({ sourceId: 'a', name: 'Alpha' }),
      source({ sourceId: 'b', name: 'Beta', lastSuccessAt: ago(30) }),
      source({ sourceId: 'c', name: 'Gamma', phase: 'offline', lastError: 'timeout' }),
    ]);
    expect(alerts(w).map((a) => [a.type, a.title])).toEqual([
      ['warning', 'Data from Beta is stale'],
      ['error', 'Sync of Gamma is failing'],
    ]);
  });

  it('says the engine cannot be reached, with the message, above the source banners', () => {
    const w = banner([source({ lastSuccessAt: ago(30) })], 'connect ECONNREFUSED 127.0.0.1:8787');
    expect(alerts(w)).toEqual([
      {
        type: 'error',
        role: 'alert',
        title: 'The engine cannot be reached',
        text: 'connect ECONNREFUSED 127.0.0.1:8787',
      },
      {
        type: 'warning',
        role: 'alert',
        title: 'Data from Production is stale',
        text: 'Last successful sync 30 minutes ago (expected every 1 min; stale after 3).',
      },
    ]);
  });

  it('explains how to sign in when the engine refuses the browser ("not signed in")', () => {
    const w = banner([], 'not signed in: open the link `dataset-health serve --ui` printed');
    expect(alerts(w)).toEqual([
      { type: 'error', role: 'alert', title: 'Not signed in', text: NOT_SIGNED_IN_HELP },
    ]);
    expect(NOT_SIGNED_IN_HELP).toContain('serve --ui');
    expect(w.text()).not.toContain('cannot be reached');
  });

  it('treats only a message that starts with "not signed in" as the sign-in problem', () => {
    const w = banner([], 'remote said: not signed in');
    expect(alerts(w).map((a) => a.title)).toEqual(['The engine cannot be reached']);
  });
});

describe('SyncStatus', () => {
  it('is a status region naming each source with how long ago it synced', () => {
    const w = syncStatus([source(), source({ sourceId: 'src-test', name: 'Test', lastSuccessAt: ago(0.5) })]);
    expect(w.get('[role="status"]').attributes('aria-label')).toBe('Sync state');
    expect(tags(w)).toEqual([
      {
        text: 'Production: synced 2 minutes ago',
        title: `${isolate('Production')} (src-prod) — synced 2 minutes ago`,
        type: 'success',
      },
      {
        text: 'Test: synced just now',
        title: `${isolate('Test')} (src-test) — synced just now`,
        type: 'success',
      },
    ]);
  });

  it('shows what a syncing source is doing', () => {
    const w = syncStatus([
      source({ phase: 'syncing', activity: 'crawl: page 3 (2,000 datasets)' }),
      source({ sourceId: 'src-test', name: 'Test', phase: 'syncing', activity: null }),
    ]);
    expect(tags(w).map((t) => [t.text, t.type])).toEqual([
      ['Production: crawl: page 3 (2,000 datasets)', 'info'],
      ['Test: syncing…', 'info'],
    ]);
  });

  it('says "offline" when the remote cannot be reached, with the error on hover', () => {
    const w = syncStatus([source({ phase: 'offline', lastError: 'getaddrinfo ENOTFOUND api.example.com' })]);
    expect(tags(w)).toEqual([
      {
        text: 'Production: offline',
        // The tooltip is plain text: the name and the error in U+2068…U+2069, as <bdi> in the tag.
        title: `${isolate('Production')} (src-prod) — synced 2 minutes ago; last error: ${isolate('getaddrinfo ENOTFOUND api.example.com')}`,
        type: 'error',
      },
    ]);
  });

  it('says "sync failing" when the remote answers wrongly', () => {
    const w = syncStatus([source({ phase: 'error', lastError: 'HTTP 500' })]);
    expect(tags(w).map((t) => [t.text, t.type])).toEqual([['Production: sync failing', 'error']]);
  });

  it('marks a source that never synced, or whose data is stale, as a warning', () => {
    const w = syncStatus([
      source({ lastSuccessAt: null }),
      source({ sourceId: 'src-test', name: 'Test', lastSuccessAt: ago(45) }),
    ]);
    expect(tags(w).map((t) => [t.text, t.type])).toEqual([
      ['Production: never synced', 'warning'],
      ['Test: synced 45 minutes ago', 'warning'],
    ]);
  });

  it('marks a stopped source as an error', () => {
    const w = syncStatus([source({ stopped: true, lastError: 'the API key was rejected (401)' })]);
    expect(tags(w)[0]!.type).toBe('error');
    expect(tags(w)[0]!.title).toContain(`last error: ${isolate('the API key was rejected (401)')}`);
  });

  it('moves with the clock: the age grows and the source turns stale after three poll intervals', async () => {
    const w = syncStatus([source({ lastSuccessAt: ago(2) })]);
    expect(tags(w).map((t) => [t.text, t.type])).toEqual([['Production: synced 2 minutes ago', 'success']]);
    await advance(1);
    expect(tags(w).map((t) => [t.text, t.type])).toEqual([['Production: synced 3 minutes ago', 'success']]);
    await advance(1);
    expect(tags(w).map((t) => [t.text, t.type])).toEqual([['Production: synced 4 minutes ago', 'warning']]);
  });

  it('says the data is imported when the org has no source and never synced', () => {
    const w = syncStatus([], ORG);
    expect(tags(w)).toEqual([]);
    expect(w.text()).toBe('No source: imported data');
  });

  it('gives the age of the data when the org has no source but synced once', () => {
    const w = syncStatus([], { ...ORG, lastSyncedAt: ago(180) });
    expect(w.text()).toBe('No source: data as of 3 hours ago');
  });

  it('shows nothing without sources or an org', () => {
    const w = syncStatus([], null);
    expect(w.text()).toBe('');
  });
});
