/** Who acknowledges from this machine (docs/architecture.md#acknowledgements): the setting, else the OS user's name. */
import { userInfo } from 'node:os';
import type { Settings } from '../../shared/settings';

export function osUserName(): string {
  try {
    const name = userInfo().username.trim();
    if (name !== '') return name;
  } catch {
    // No passwd entry (a container's random uid): the environment may still say.
  }
  return (process.env.USER ?? process.env.USERNAME ?? '').trim() || 'unknown user';
}

export function acknowledgerName(settings: Settings): string {
  const name = settings.triage.name.trim();
  return name !== '' ? name : osUserName();
}
