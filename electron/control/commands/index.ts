/** Every command the CLI may hand to a running instance, by the name the control channel carries. */
import type { ControlledCommand } from '../command';
import { ack, unack } from './ack';
import { handoff } from './handoff';
import { keysCreate, keysList, keysRevoke } from './keys';
import { rulesDeadLetters, rulesSendAgain } from './deadLetters';
import { rulesExport, rulesImport, rulesReset } from './rules';
import { rulesTest } from './rulesTest';
import { exportData, importData } from './snapshot';
import { sourcesAdd, sourcesList, sourcesRemove } from './sources';
import { syncOnce } from './sync';
import { teamJoin, teamLeave, teamStatus } from './team';
import { teamTokensCreate, teamTokensList, teamTokensRevoke } from './teamTokens';
import { webUiLink } from './ui';

export const COMMANDS = {
  'keys.create': keysCreate,
  'keys.list': keysList,
  'keys.revoke': keysRevoke,
  'sources.add': sourcesAdd,
  'sources.list': sourcesList,
  'sources.remove': sourcesRemove,
  import: importData,
  export: exportData,
  'sync.once': syncOnce,
  ui: webUiLink,
  ack,
  unack,
  handoff,
  'rules.export': rulesExport,
  'rules.import': rulesImport,
  'rules.reset': rulesReset,
  'rules.test': rulesTest,
  'rules.deadLetters': rulesDeadLetters,
  'rules.sendAgain': rulesSendAgain,
  'team.join': teamJoin,
  'team.leave': teamLeave,
  'team.status': teamStatus,
  'team.tokens.create': teamTokensCreate,
  'team.tokens.list': teamTokensList,
  'team.tokens.revoke': teamTokensRevoke,
} satisfies Record<string, ControlledCommand>;

export type CommandName = keyof typeof COMMANDS;

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}
