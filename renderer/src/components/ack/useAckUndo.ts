/**
 * What acknowledging did, said before the list moves (docs/decisions.md, issue 23 part 4): a message
 * "Acknowledged 14 datasets of Ingest failed: E_AUTH_FAILED" (or "Acknowledged Daily prices") with
 * "Undo", which withdraws exactly the acknowledgements just made — dataset by dataset, and each only
 * while it is still the one made here: one someone made since, or one that ended, is left alone.
 *
 * The message stays while the pointer or the keyboard's focus is in it, else goes after UNDO_MS. Esc in
 * it closes it; leaving it by Undo, Esc or its close button gives the focus back (`returnFocus`).
 */
import { type MessageReactive, NButton, useMessage } from 'naive-ui';
import { type VNodeArrayChildren, h, nextTick } from 'vue';
import type { AcknowledgementView } from '../../../../shared/causes';
import { messageOf } from '../../lib/errors';
import { useRpc } from '../../rpc/client';

/** How long the message offers Undo while nobody is in it. */
export const UNDO_MS = 10_000;

export interface AckUndoOptions {
  /** After an undo went through: reload what is shown. */
  changed: () => void;
  /**
   * Where the focus goes when it leaves the message by Undo, Esc or close; `changing`: by Undo, what the
   * buttons show is about to change.
   */
  returnFocus: (changing: boolean) => void;
}

const plural = (n: number, word: string): string => `${n.toLocaleString()} ${word}${n === 1 ? '' : 's'}`;

/** The same acknowledgement: its dataset's failure, who and when (an acknowledgement is never edited). */
const same = (a: AcknowledgementView, b: AcknowledgementView): boolean =>
  a.datasetId === b.datasetId && a.deliveryId === b.deliveryId && a.by === b.by && a.at === b.at;

let messages = 0;

/** A message's words in a live region: a screen reader says them as they appear. */
const said = (role: 'status' | 'alert', words: VNodeArrayChildren) => h('span', { role }, words);

export function useAckUndo(options: AckUndoOptions) {
  const message = useMessage();
  const rpc = useRpc();

  /** Withdraws those of `made` still in force as made; how many. */
  async function withdraw(orgId: string, made: AcknowledgementView[]): Promise<number> {
    const open = await rpc.call('acks.list', { orgId, includeEnded: false });
    const ours = made.filter((ack) => open.some((current) => same(current, ack)));
    let cleared = 0;
    // One at a time: each is its own transaction; a cause of thousands stays a background trickle.
    for (const ack of ours) {
      const answer = await rpc.call('acks.clear', { orgId, datasetId: ack.datasetId, causeId: null });
      cleared += answer.cleared;
    }
    return cleared;
  }

  /**
   * Says what `made` acknowledged (of `subject`; `wholeCause`: a cause's, counted in datasets) and
   * offers Undo. `focusUndo`: the focus goes to Undo (the dialog that had it has closed).
   */
  function announce(
    orgId: string,
    subject: string,
    made: AcknowledgementView[],
    wholeCause: boolean,
  ): { focusUndo: () => void } {
    if (made.length === 0) {
      message.info(() =>
        said('status', ['Nothing left to acknowledge in ', h('bdi', subject), ': someone else did.']),
      );
      return { focusUndo: () => undefined };
    }
    const id = `ack-message-${++messages}`;
    let shown: MessageReactive | null = null;
    let timer: number | null = null;
    let inside = { pointer: false, focus: false };
    /** The message as drawn: our content, within naive-ui's box with its close button. */
    const root = () => document.getElementById(id);
    const hasFocus = (): boolean =>
      (root()?.closest('.n-message') ?? root())?.contains(document.activeElement) ?? false;

    const close = (focusBack: boolean): void => {
      if (timer !== null) window.clearTimeout(timer);
      timer = null;
      const hadFocus = hasFocus();
      shown?.destroy();
      shown = null;
      if (focusBack && hadFocus) options.returnFocus(false);
    };
    const wait = (): void => {
      if (timer !== null) window.clearTimeout(timer);
      timer = inside.pointer || inside.focus ? null : window.setTimeout(() => close(false), UNDO_MS);
    };

    async function undo(): Promise<void> {
      const hadFocus = hasFocus();
      close(false);
      try {
        const cleared = await withdraw(orgId, made);
        options.changed();
        if (hadFocus) options.returnFocus(true);
        const left = made.length - cleared;
        const withdrew =
          cleared === 1 && made.length === 1 ? 'the acknowledgement' : plural(cleared, 'acknowledgement');
        message.success(() =>
          said('status', [
            `Withdrew ${withdrew} of `,
            h('bdi', subject),
            left > 0
              ? `; ${plural(left, 'other')} had ended or been made again since and stay as they are`
              : '',
          ]),
        );
      } catch (error) {
        message.error(() =>
          said('alert', [
            'The acknowledgement of ',
            h('bdi', subject),
            ` was not undone: ${messageOf(error)}`,
          ]),
        );
      }
    }

    const what = () =>
      wholeCause
        ? [`Acknowledged ${plural(made.length, 'dataset')} of `, h('bdi', subject)]
        : ['Acknowledged ', h('bdi', subject)];
    shown = message.success(
      () =>
        h(
          'span',
          {
            id,
            role: 'status',
            class: 'ack-undo',
            'data-ack-message': '',
            style: 'display: inline-flex; align-items: baseline; gap: 12px; flex-wrap: wrap',
            onMouseenter: () => ((inside = { ...inside, pointer: true }), wait()),
            onMouseleave: () => ((inside = { ...inside, pointer: false }), wait()),
            onFocusin: () => ((inside = { ...inside, focus: true }), wait()),
            onFocusout: (event: FocusEvent) => {
              if (root()?.contains(event.relatedTarget as Node | null)) return;
              inside = { ...inside, focus: false };
              wait();
            },
            onKeydown: (event: KeyboardEvent) => {
              if (event.key !== 'Escape') return;
              // Handled: the window's Esc (back, close a cause) must not act too.
              event.preventDefault();
              close(true);
            },
          },
          [
            h('span', { id: `${id}-text` }, what()),
            h(
              NButton,
              {
                size: 'tiny',
                type: 'primary',
                secondary: true,
                'aria-describedby': `${id}-text`,
                'data-ack-undo': '',
                onClick: () => void undo(),
              },
              () => 'Undo',
            ),
          ],
        ),
      { duration: 0, closable: true, onClose: () => close(true) },
    );
    wait();
    return {
      focusUndo: () => void nextTick(() => root()?.querySelector<HTMLElement>('[data-ack-undo]')?.focus()),
    };
  }

  return { announce };
}
