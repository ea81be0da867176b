/**
 * Each command the CLI may run or hand over, loaded when a run needs it: a command's start pays for its
 * own module (and what it imports), never for the other commands' — `keys list` does not load the
 * snapshot import or the sync. The table is checked against `COMMANDS`, so a command cannot be missing.
 */
import type { COMMANDS, CommandName } from '../control/commands';

type Definition<N extends CommandName> = (typeof COMMANDS)[N];

export const COMMAND_MODULES: { [N in CommandName]: () => Promise<Definition<N>> } = {
  'keys.create': async () => (await import('../control/commands/keys')).keysCreate,
  'keys.list': async () => (await import('../control/commands/keys')).keysList,
  'keys.revoke': async () => (await import('../control/commands/keys')).keysRevoke,
  'sources.add': async () => (await import('../control/commands/sources')).sourcesAdd,
  'sources.list': async () => (await import('../control/commands/sources')).sourcesList,
  'sources.remove': async () => (await import('../control/commands/sources')).sourcesRemove,
  import: async () => (await import('../control/commands/snapshot')).importData,
  export: async () => (await import('../control/commands/snapshot')).exportData,
  'sync.once': async () => (await import('../control/commands/sync')).syncOnce,
  ui: async () => (await import('../control/commands/ui')).webUiLink,
  ack: async () => (await import('../control/commands/ack')).ack,
  unack: async () => (await import('../control/commands/ack')).unack,
  handoff: async () => (await import('../control/commands/handoff')).handoff,
  'rules.export': async () => (await import('../control/commands/rules')).rulesExport,
  'rules.import': async () => (await import('../control/commands/rules')).rulesImport,
  'rules.reset': async () => (await import('../control/commands/rules')).rulesReset,
  'rules.test': async () => (await import('../control/commands/rulesTest')).rulesTest,
  'rules.deadLetters': async () => (await import('../control/commands/deadLetters')).rulesDeadLetters,
  'rules.sendAgain': async () => (await import('../control/commands/deadLetters')).rulesSendAgain,
  'team.join': async () => (await import('../control/commands/team')).teamJoin,
  'team.leave': async () => (await import('../control/commands/team')).teamLeave,
  'team.status': async () => (await import('../control/commands/team')).teamStatus,
  'team.tokens.create': async () => (await import('../control/commands/teamTokens')).teamTokensCreate,
  'team.tokens.list': async () => (await import('../control/commands/teamTokens')).teamTokensList,
  'team.tokens.revoke': async () => (await import('../control/commands/teamTokens')).teamTokensRevoke,
};
