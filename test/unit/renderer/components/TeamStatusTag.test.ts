/**
 * The team line in the window's header (renderer/src/components/TeamStatusTag.vue): nothing for an org
 * this desktop keeps alone; else how it stands with the team server in the words the on-call person
 * reads — "Team: offline — 3 changes waiting" — with when the server last answered and what went wrong.
 */
import { RouterLinkStub, type VueWrapper, mount } from '@vue/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { ref } from 'vue';
import TeamStatusTag from '../../../../renderer/src/components/TeamStatusTag.vue';
import { CLOCK } from '../../../../renderer/src/lib/clock';
import type { TeamStatus } from '../../../../shared/teamStatus';

const NOW = new Date('2026-11-29T12:00:00Z');
let wrapper: VueWrapper | null = null;
afterEach(() => {
  wrapper?.unmount();
  wrapper = null;
});

const status = (overrides: Partial<TeamStatus> = {}): TeamStatus => ({
  orgId: 'acme',
  url: 'http://127.0.0.1:47900',
  member: 'Alice',
  role: 'member',
  state: 'online',
  waiting: 0,
  lastContactAt: '2026-11-29T11:58:00.000Z',
  problem: null,
  applied: 0,
  ...overrides,
});

function tag(value: TeamStatus | null): VueWrapper {
  wrapper = mount(TeamStatusTag, {
    props: { status: value },
    global: { provide: { [CLOCK as symbol]: ref(NOW) }, stubs: { RouterLink: RouterLinkStub } },
  });
  return wrapper;
}

describe('the team line', () => {
  it('is absent for an org this desktop keeps alone', () => {
    expect(tag(null).find('[data-team-status]').exists()).toBe(false);
  });

  it('says who this desktop is on the team when online, and when the server last answered', () => {
    const line = tag(status()).find('a');
    expect(line.text()).toBe('Team: online as Alice');
    expect(line.attributes('title')).toContain('last answered 2 minutes ago');
    expect(wrapper!.findComponent(RouterLinkStub).props('to')).toEqual({
      name: 'settings',
      query: { section: 'team' },
    });
  });

  it('says how many changes wait while offline, and why', () => {
    const line = tag(
      status({ state: 'offline', waiting: 3, problem: 'fetch failed: connect ECONNREFUSED 127.0.0.1:47900' }),
    ).find('a');
    expect(line.text()).toBe('Team: offline — 3 changes waiting');
    expect(line.attributes('title')).toContain('ECONNREFUSED');
  });

  it('says so when the server refuses, and one change is one', () => {
    expect(tag(status({ state: 'refused', waiting: 1 })).text()).toBe(
      'Team: refused by the team server — 1 change waiting',
    );
  });
});
