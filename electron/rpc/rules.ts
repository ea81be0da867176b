/**
 * Settings → Rules in the window (docs/decisions.md "Notification rules"): an org's rules in force with
 * the defaults, saving a set checked whole (a refused set changes nothing and comes back with its
 * problems by field), reset, the replay of a set not yet saved, and the dead letters of its routes.
 * A webhook's secret header value never leaves the engine (docs/decisions.md "Settings → Rules").
 */
import { checkRuleSet, describeRuleProblems } from '../../shared/ruleCheck';
import { type RuleSet, defaultRuleSet } from '../../shared/rules';
import { type RulesView, keptSecrets, withheldSecrets } from '../../shared/rulesView';
import { type RpcHandlers, RpcError } from '../../shared/rpc';
import { knownZone } from '../../shared/time';
import { replayRules } from '../alerts/replay';
import { listDeadLetters, sendAgain } from '../routes/deadLetters';
import type { Store } from '../store/database';
import { UnknownOrgError, getOrg } from '../store/tables/orgs';
import { RuleSetError, readRuleSet, resetRuleSet, saveRuleSet } from '../store/tables/ruleSets';
import type { SettingsFile } from '../store/tables/settings';

export interface RulesDeps {
  store: Store;
  now: () => Date;
  settings: SettingsFile;
  /** The rules changed: the alerts redraw the tray. */
  alertsChanged?(): void;
  /** A dead letter was sent again: the deliverer wakes for it (absent: no deliverer runs here). */
  routesChanged?(): void;
}

type RulesCalls =
  'rules.get' | 'rules.save' | 'rules.reset' | 'rules.replay' | 'routes.deadLetters' | 'routes.sendAgain';

/** The zone's name if this system knows it. */
function checkedZone(zone: string): string {
  const known = knownZone(zone);
  if (known === null)
    throw new RpcError('invalid-argument', `timeZone: ${JSON.stringify(zone)} is not a time zone`);
  return known;
}

export function rulesHandlers(deps: RulesDeps): Pick<RpcHandlers, RulesCalls> {
  const { store, now } = deps;
  const defaults = (): RuleSet =>
    defaultRuleSet({ recoveryNotices: deps.settings.read().notifications.recoveryNotices });
  const knownOrg = (orgId: string): void => {
    if (!getOrg(store, orgId)) throw new RpcError('not-found', `no org '${orgId}' in this mirror`);
  };

  /** The rules in force as the alerts read them: a stored set refused by the check is not in force. */
  const viewOf = (orgId: string, fallback: RuleSet): RulesView => {
    knownOrg(orgId);
    try {
      const stored = readRuleSet(store, orgId, fallback);
      return { orgId, ...stored, set: withheldSecrets(stored.set), defaults: fallback, problem: null };
    } catch (error) {
      if (!(error instanceof RuleSetError)) throw error;
      return {
        orgId,
        set: fallback,
        own: false,
        savedAt: null,
        defaults: fallback,
        problem: `The saved rules were changed outside the app and are refused (${error.message}): the default rules are in force until a set is saved.`,
      };
    }
  };

  /** The stored set, for the secrets a save keeps (none when it is refused or the default). */
  const storedSet = (orgId: string): RuleSet => {
    try {
      return readRuleSet(store, orgId, { rules: [], routes: [] }).set;
    } catch (error) {
      if (error instanceof RuleSetError) return { rules: [], routes: [] };
      throw error;
    }
  };

  return {
    'rules.get': ({ orgId }) => {
      const fallback = defaults();
      return store.whenReadable(() => viewOf(orgId, fallback));
    },
    'rules.save': async ({ orgId, set }) => {
      const check = checkRuleSet(set);
      if (!check.ok) return { saved: false, problems: check.problems };
      const fallback = defaults();
      const result = await store.whenIdle(() => {
        knownOrg(orgId);
        const kept = keptSecrets(check.set, storedSet(orgId));
        if (!kept.ok) return { saved: false as const, problems: kept.problems };
        try {
          saveRuleSet(store, orgId, kept.set, now());
        } catch (error) {
          if (error instanceof RuleSetError) return { saved: false as const, problems: [...error.problems] };
          if (error instanceof UnknownOrgError) throw new RpcError('not-found', error.message);
          throw error;
        }
        return { saved: true as const, view: viewOf(orgId, fallback) };
      });
      if (result.saved) deps.alertsChanged?.();
      return result;
    },
    'rules.reset': async ({ orgId }) => {
      const fallback = defaults();
      const view = await store.whenIdle(() => {
        knownOrg(orgId);
        resetRuleSet(store, orgId);
        return viewOf(orgId, fallback);
      });
      deps.alertsChanged?.();
      return view;
    },
    // The candidate is replayed as `rules test --file` replays a file: checked whole, saved nowhere.
    'rules.replay': ({ orgId, set, days, timeZone }) => {
      const check = checkRuleSet(set);
      if (!check.ok)
        throw new RpcError(
          'invalid-argument',
          `the rules to replay are refused:\n${describeRuleProblems(check.problems)}`,
        );
      const zone = checkedZone(timeZone);
      return store.whenReadable(() => {
        knownOrg(orgId);
        return replayRules({ store, orgId, set: check.set, days, now: now(), timeZone: zone });
      });
    },
    'routes.deadLetters': ({ orgId }) =>
      store.whenReadable(() => {
        knownOrg(orgId);
        return listDeadLetters(store, orgId);
      }),
    'routes.sendAgain': async ({ id }) => {
      const letter = await store.whenIdle(() => sendAgain(store, id, now()));
      if (!letter)
        throw new RpcError('not-found', `no dead letter with id ${id}: it may be on its way already`);
      deps.routesChanged?.();
      return { letter, delivering: deps.routesChanged !== undefined };
    },
  };
}
