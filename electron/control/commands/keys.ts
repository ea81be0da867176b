/** `keys create|list|revoke`: local API keys (docs/api.md#keys). `create` prints the key alone on stdout. */
import Type from 'typebox';
import {
  KeyNameError,
  checkKeyName,
  createApiKey,
  listApiKeys,
  revokeApiKey,
} from '../../store/tables/apiKeys';
import { UnknownOrgError, printable } from '../../store/tables/orgs';
import { CommandError, READ_ONLY, command } from '../command';
import { checkOrg } from './org';
import { printKeys } from './keyList';

export const keysCreate = command({
  args: Type.Object(
    { org: Type.String(), name: Type.String(), newOrg: Type.Optional(Type.Boolean()) },
    { additionalProperties: false },
  ),
  async run({ store, now }, { org, name, newOrg = false }, out) {
    checkOrg(org);
    checkName(name);
    const created = await store.whenIdle(() => {
      try {
        return createApiKey(store, org, name, now(), { newOrg });
      } catch (error) {
        if (error instanceof UnknownOrgError)
          throw new CommandError(`${error.message} Pass --new-org to create it.`);
        throw error;
      }
    });
    out.stdout(`${created.key}\n`);
    out.stderr(
      `Created key ${created.id} ('${printable(created.name)}') for org ${created.orgId}. Store it now: it is not shown again.\n`,
    );
  },
  ifOutcomeUnknown: ({ org, name }) =>
    `\`dataset-health keys list --org ${org}\` shows a key named '${printable(name)}' created just now if it was; its secret never reached you, so revoke that key and create another`,
});

/** The key name, checked before anything touches the store (on both paths). */
export function checkName(name: string): void {
  try {
    checkKeyName(name);
  } catch (error) {
    if (error instanceof KeyNameError) throw new CommandError(error.message);
    throw error;
  }
}

export const keysList = command({
  args: Type.Object(
    { org: Type.Optional(Type.String()), json: Type.Boolean() },
    { additionalProperties: false },
  ),
  async run({ store }, { org, json }, out) {
    printKeys(out, await store.whenIdle(() => listApiKeys(store, org)), json);
  },
  ifOutcomeUnknown: () => READ_ONLY,
});

export const keysRevoke = command({
  args: Type.Object({ id: Type.String() }, { additionalProperties: false }),
  async run({ store, now }, { id }, out) {
    const revoked = await store.whenIdle(() => revokeApiKey(store, id, now()));
    if (!revoked)
      throw new CommandError(`no active key with id '${printable(id)}' (see \`dataset-health keys list\`)`);
    out.stderr(`Revoked key ${id}.\n`);
  },
  ifOutcomeUnknown: ({ id }) =>
    `\`dataset-health keys list\` shows whether key '${printable(id)}' is revoked; revoking it again is safe`,
});
