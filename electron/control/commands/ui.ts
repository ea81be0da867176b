/**
 * `ui`: a fresh one-time link to the web UI of the running `serve --ui` (docs/architecture.md#the-cli), so a used or
 * lost link never needs a restart. Only a running instance can mint one: its sessions live in memory.
 */
import Type from 'typebox';
import { CommandError, command } from '../command';

export const NO_WEB_UI_SERVE =
  'no `dataset-health serve --ui` is running on this data directory: start one (it prints a link), then `dataset-health ui` gives more';

export const webUiLink = command({
  args: Type.Object({}, { additionalProperties: false }),
  async run({ instance }, _args, out): Promise<{ url: string }> {
    if (!instance) throw new CommandError(NO_WEB_UI_SERVE);
    if (!instance.newWebUiLink)
      throw new CommandError(
        instance.purpose === 'serve'
          ? `the running serve (process ${instance.pid}) has no web UI: restart it with --ui`
          : `the running ${instance.purpose} (process ${instance.pid}) has no web UI: use its window, or quit it and run \`dataset-health serve --ui\``,
      );
    const url = instance.newWebUiLink();
    out.stdout(`Web UI: ${url}\n`);
    return { url };
  },
  ifOutcomeUnknown: () => 'a link that never reached you is never used: asking again is safe',
});
