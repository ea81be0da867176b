/**
 * Urgent notifications and sounds (issue 27): an urgent announcement stays on screen until dismissed
 * and plays the urgent sound; a named sound plays on macOS only (elsewhere the system's sound, never a
 * fake); a normal failure's options are exactly those of before.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { DEFAULT_SOUNDS, type Sound, type Sounds } from '../../../shared/settings';
import type { Announcement } from '../../../electron/alerts/types';
import { NotificationPresenter, soundOptions } from '../../../electron/main/notifications';
import { fakeElectron } from '../../helpers/electronFake';

const ROOT = join(import.meta.dirname, '../../..');
const ORG = 'acme';

const failed: Announcement = {
  kind: 'summary',
  cause: 'many',
  orgId: ORG,
  datasets: [],
  causes: [],
  title: 't',
  body: 'b',
  target: { view: 'failed', orgId: ORG },
  at: '2026-11-21T12:00:00.000Z',
};
const recovered: Announcement = {
  kind: 'recovered',
  orgId: ORG,
  datasets: [],
  title: 't',
  body: 'b',
  target: { view: 'datasets', orgId: ORG },
  at: '2026-11-21T12:00:00.000Z',
};

function shown(announcement: Announcement, platform: NodeJS.Platform, sounds: Sounds = DEFAULT_SOUNDS) {
  const electron = fakeElectron({ dataDir: '/nonexistent', root: ROOT, now: () => new Date(0), platform });
  const presenter = new NotificationPresenter(
    electron.deps,
    () => undefined,
    '/icon.png',
    () => sounds,
  );
  expect(presenter.show(announcement)).toBe(true);
  return electron.notifications[0]!.options;
}

describe('notification options', () => {
  it.each(['darwin', 'win32', 'linux'] as const)(
    'on %s a normal failure is as before: no sound option',
    (platform) => {
      expect(shown(failed, platform)).toEqual({
        title: 't',
        body: 'b',
        icon: platform === 'darwin' ? undefined : '/icon.png',
        urgency: 'critical',
        timeoutType: 'never',
      });
    },
  );

  it.each([
    ['darwin', { sound: 'Sosumi' }],
    ['win32', {}],
    ['linux', {}],
  ] as const)('on %s an urgent one stays until dismissed, with the urgent sound %j', (platform, sound) => {
    const options = shown({ ...failed, urgent: true }, platform);
    expect(options).toMatchObject({ urgency: 'critical', timeoutType: 'never' });
    expect({ sound: options.sound, silent: options.silent }).toEqual({
      silent: undefined,
      sound: undefined,
      ...sound,
    });
  });

  it('urgent good news is an alarm too: it stays', () => {
    expect(shown(recovered, 'linux')).toMatchObject({ urgency: 'low', timeoutType: 'default' });
    expect(shown({ ...recovered, urgent: true }, 'linux')).toMatchObject({
      urgency: 'critical',
      timeoutType: 'never',
    });
  });

  it('each kind plays its own choice: a silent normal one, a silent urgent one', () => {
    const quiet: Sounds = { notify: 'silent', urgent: 'Glass' };
    expect(shown(failed, 'linux', quiet)).toMatchObject({ silent: true });
    expect(shown({ ...failed, urgent: true }, 'darwin', quiet)).toMatchObject({ sound: 'Glass' });
    expect(shown({ ...failed, urgent: true }, 'win32', { notify: 'system', urgent: 'silent' })).toMatchObject(
      {
        silent: true,
      },
    );
  });
});

describe('soundOptions', () => {
  it.each<[Sound, NodeJS.Platform, object]>([
    ['system', 'darwin', {}],
    ['system', 'linux', {}],
    ['silent', 'darwin', { silent: true }],
    ['silent', 'win32', { silent: true }],
    ['silent', 'linux', { silent: true }],
    ['Basso', 'darwin', { sound: 'Basso' }],
    ['Basso', 'win32', {}],
    ['Basso', 'linux', {}],
  ])('%s on %s: %j', (sound, platform, options) => {
    expect(soundOptions(sound, platform)).toEqual(options);
  });
});
