/**
 * `rules dead-letters [--org] [--json]` and `rules send-again <id>` (docs/decisions.md "Routes: at most
 * once (issue 27)"): the deliveries to hooks and webhooks given up, and one of them put back on its way
 * by a person — never by the deliverer, since it may deliver twice what had an unknown outcome.
 */
import Type from 'typebox';
import { type DeadLetter, listDeadLetters, sendAgain } from '../../routes/deadLetters';
import { printableJson } from '../../store/tables/orgs';
import { CommandError, type CommandOutput, READ_ONLY, command } from '../command';
import { checkOrg, knownOrg } from './org';
import { printTable } from './table';

/** A table on stdout, JSON with `json`, or a line on stderr when there is none. */
export function printDeadLetters(
  out: CommandOutput,
  letters: readonly DeadLetter[],
  json: boolean,
  org?: string,
): void {
  if (json) {
    out.stdout(`${printableJson(letters)}\n`);
    return;
  }
  if (letters.length === 0) {
    out.stderr(
      `No dead letters${org === undefined ? '' : ` of ${org}`}: every delivery to a hook or webhook went out or is on its way.\n`,
    );
    return;
  }
  printTable(out, [
    ['ID', 'ORG', 'ROUTE', 'NOTIFICATION', 'SENT', 'ATTEMPTS', 'GIVEN UP', 'LAST ERROR'],
    ...letters.map((letter) => [
      String(letter.id),
      letter.orgId,
      letter.routeId,
      letter.title || letter.notificationId,
      letter.createdAt,
      String(letter.attempts),
      letter.diedAt,
      letter.lastError ?? '-',
    ]),
  ]);
}

export const rulesDeadLetters = command({
  args: Type.Object(
    { org: Type.Optional(Type.String()), json: Type.Boolean() },
    { additionalProperties: false },
  ),
  async run({ store }, { org, json }, out) {
    if (org !== undefined) checkOrg(org);
    const letters = await store.whenIdle(() =>
      listDeadLetters(store, org === undefined ? undefined : knownOrg(store, org)),
    );
    printDeadLetters(out, letters, json, org);
  },
  ifOutcomeUnknown: () => READ_ONLY,
});

/** A dead letter's id as `rules dead-letters` prints it. */
const ID = /^[1-9][0-9]{0,15}$/;

export const rulesSendAgain = command({
  args: Type.Object({ id: Type.String() }, { additionalProperties: false }),
  async run({ store, now, instance }, { id }, out) {
    const letter = ID.test(id) ? await store.whenIdle(() => sendAgain(store, Number(id), now())) : null;
    if (!letter)
      throw new CommandError(
        `no dead letter with id ${JSON.stringify(id)} (see \`dataset-health rules dead-letters\`)`,
      );
    instance?.routesChanged?.();
    out.stderr(
      `${letter.title || letter.notificationId} is on its way to ${letter.routeId} of ${letter.orgId} again${
        instance ? '' : ': it goes out when the app or `serve` runs'
      }.\n`,
    );
  },
  ifOutcomeUnknown: ({ id }) =>
    `\`dataset-health rules dead-letters\` lists ${id} while it is not on its way again; sending it again once more is safe (only a dead letter is sent again)`,
});
