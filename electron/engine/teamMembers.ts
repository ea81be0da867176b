/**
 * This engine as a team member (docs/decisions.md "On call as a team: members"): one exchange with the
 * team server per linked org, started with the engine and again after `team join|leave`; the team's
 * token serves as the remote key of the source that mirrors the org from the team server, so the
 * team server is the org's one poller of the remote service.
 */
import type { TeamStatus } from '../../shared/teamStatus';
import type { Store } from '../store/database';
import { type TeamLink, teamLinks } from '../store/tables/teamLinks';
import type { SecretKeeper } from '../sync/secrets';
import { TeamExchange } from '../team/exchange';

/** The link's token, unsealed; null when this machine cannot open it (sealed on another). */
export function teamToken(link: TeamLink, secrets: SecretKeeper): string | null {
  return link.tokenSealed ? (secrets.unseal?.(link.token) ?? null) : link.token;
}

/** `secrets`, with each team link's token as the key of the source that mirrors its org. */
export function withTeamTokens(store: Store, secrets: SecretKeeper): SecretKeeper {
  return {
    ...secrets,
    apiKeyFor: (source) => {
      const link = teamLinks(store).find((each) => each.sourceId === source.id);
      return link ? teamToken(link, secrets) : secrets.apiKeyFor(source);
    },
  };
}

export interface TeamMembersOptions {
  store: Store;
  secrets: SecretKeeper;
  now: () => Date;
  fetch?: typeof fetch;
  /** Operations from the team changed acknowledgements or snoozes. */
  onApplied: () => void;
  onStatus?: (status: TeamStatus) => void;
  backoff?: { minMs: number; maxMs: number };
  log?: (message: string) => void;
}

export class TeamMembers {
  private exchanges = new Map<string, TeamExchange>();
  private readonly problems = new Map<string, TeamStatus>();
  /** Reloads run one at a time (a join in the window and one from the CLI may overlap). */
  private reloading: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: TeamMembersOptions) {}

  /** Starts an exchange for every linked org (stopping those of orgs no longer linked). */
  reload(): Promise<void> {
    const next = this.reloading.then(() => this.reloadNow());
    this.reloading = next.catch(() => undefined);
    return next;
  }

  private async reloadNow(): Promise<void> {
    if (this.stopped) return;
    const running = this.exchanges;
    this.exchanges = new Map();
    this.problems.clear();
    await Promise.all([...running.values()].map((exchange) => exchange.stop()));
    for (const link of teamLinks(this.options.store)) {
      const token = teamToken(link, this.options.secrets);
      if (token === null) {
        this.problems.set(link.orgId, {
          orgId: link.orgId,
          url: link.url,
          member: link.member,
          role: link.role,
          state: 'refused',
          waiting: 0,
          lastContactAt: null,
          problem: 'the team token was sealed on another computer or account: join the team again',
          applied: 0,
        });
        continue;
      }
      const exchange = new TeamExchange({
        store: this.options.store,
        link,
        token,
        now: this.options.now,
        fetch: this.options.fetch,
        onApplied: () => this.options.onApplied(),
        onStatus: this.options.onStatus,
        backoff: this.options.backoff,
        log: this.options.log,
      });
      this.exchanges.set(link.orgId, exchange);
      exchange.start();
    }
  }

  /** Something may wait to be exchanged for `orgId` (or every org): a round soon. */
  nudge(orgId?: string): void {
    if (orgId === undefined) for (const exchange of this.exchanges.values()) exchange.nudge();
    else this.exchanges.get(orgId)?.nudge();
  }

  statuses(): TeamStatus[] {
    return [...[...this.exchanges.values()].map((exchange) => exchange.status()), ...this.problems.values()];
  }

  /** Resolves once no exchange has a round running (tests). */
  async idle(): Promise<void> {
    await Promise.all([...this.exchanges.values()].map((exchange) => exchange.idle()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.reloading;
    const running = [...this.exchanges.values()];
    this.exchanges.clear();
    await Promise.all(running.map((exchange) => exchange.stop()));
  }
}
