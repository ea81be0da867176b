/** `sources add|list|remove`: the remote orgs `serve` and the app keep in sync (docs/architecture.md#sync). */
import Type from 'typebox';
import { SourceError, listSources, removeSource, saveSource } from '../../store/tables/sources';
import { envSecretKeeper } from '../../sync/secrets';
import { CommandError, READ_ONLY, type RunningInstance, command } from '../command';
import { printable, printableJson } from '../../store/tables/orgs';
import { checkOrg } from './org';
import { printTable } from './table';

export const sourcesAdd = command({
  args: Type.Object(
    {
      id: Type.Optional(Type.String()),
      org: Type.String(),
      remote: Type.String(),
      name: Type.Optional(Type.String()),
      disabled: Type.Boolean(),
      /** The CLI's `DATASET_HEALTH_REMOTE_KEY*` variables that are set (names only): to say whether a key is set. */
      keyVariables: Type.Array(Type.String()),
    },
    { additionalProperties: false },
  ),
  async run({ store, now, instance }, args, out) {
    const orgId = checkOrg(args.org);
    const source = await store.whenIdle(() => {
      try {
        return saveSource(
          store,
          { id: args.id ?? orgId, orgId, name: args.name, baseUrl: args.remote, enabled: !args.disabled },
          now(),
        );
      } catch (error) {
        if (error instanceof SourceError) throw new CommandError(error.message);
        throw error;
      }
    });
    const described = `Source ${source.id}: org ${source.orgId} from ${source.baseUrl}${source.enabled ? '' : ' (disabled)'}.`;
    if (!instance) {
      const secrets = envSecretKeeper(Object.fromEntries(args.keyVariables.map((name) => [name, 'set'])));
      out.stderr(
        `${described} ${secrets.apiKeyFor(source) ? 'A remote key is set in the environment.' : `Before \`serve\`, ${secrets.hint}.`}\n`,
      );
      return;
    }
    // A running instance syncs the new source from now on, as a save in Settings does, with its own key.
    await restartSync(instance, described);
    out.stderr(
      `${described} ${
        instance.secrets.apiKeyFor(source)
          ? `The running ${instance.purpose} has a remote key for it and syncs it now.`
          : `The running ${instance.purpose} has no remote key for it: ${instance.secrets.hint}${instance.purpose === 'serve' ? ' for serve, and restart it' : ''}.`
      }\n`,
    );
  },
  ifOutcomeUnknown: (args) =>
    `\`dataset-health sources list\` shows whether source '${printable(args.id ?? args.org)}' was saved; adding it again is safe (it replaces the source of the same id)`,
});

export const sourcesList = command({
  args: Type.Object({ json: Type.Boolean() }, { additionalProperties: false }),
  async run({ store }, { json }, out) {
    const list = await store.whenIdle(() => listSources(store));
    const shown = list.map(({ apiKeySealed: _sealed, ...source }) => source);
    if (json) {
      out.stdout(`${printableJson(shown)}\n`);
      return;
    }
    if (shown.length === 0) {
      out.stderr('No sources yet: add one with `dataset-health sources add --org <org> --remote <url>`.\n');
      return;
    }
    printTable(out, [
      ['ID', 'ORG', 'NAME', 'REMOTE', 'ENABLED'],
      ...shown.map((s) => [s.id, s.orgId, s.name, s.baseUrl, s.enabled ? 'yes' : 'no']),
    ]);
  },
  ifOutcomeUnknown: () => READ_ONLY,
});

export const sourcesRemove = command({
  args: Type.Object({ id: Type.String() }, { additionalProperties: false }),
  async run({ store, instance }, { id }, out) {
    const removed = await store.whenIdle(() => removeSource(store, id));
    if (!removed) throw new CommandError(`no source '${id}' (see \`dataset-health sources list\`)`);
    if (instance) await restartSync(instance, `Removed source ${id}.`);
    out.stderr(`Removed source ${id}.\n`);
  },
  ifOutcomeUnknown: ({ id }) =>
    `\`dataset-health sources list\` shows whether source '${printable(id)}' is gone`,
});

/** The change is stored either way: a sync that cannot restart is said plainly, not as an internal error. */
async function restartSync(instance: RunningInstance, done: string): Promise<void> {
  try {
    await instance.reloadSync();
  } catch (error) {
    throw new CommandError(
      `${done} But the running ${instance.purpose} could not restart its sync: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
