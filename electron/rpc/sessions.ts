/**
 * Who may use the web UI of `serve --ui` (docs/architecture.md#the-cli): the printed URL carries a one-time token; the
 * first request with it gets a random session id in an HttpOnly, SameSite=Strict cookie, and the token
 * is spent. Reloads keep working through the cookie; a copied URL is worthless once used. `dataset-health
 * ui` asks the running serve for another token (`issue`), so a used or lost link never needs a restart.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Named by port: browsers send a cookie to every port of a host, so another `serve --ui` on this machine
 * must neither overwrite this one's session nor read it under its own name.
 */
export const sessionCookie = (port: number): string => `dh_session_${port}`;

const secret = (): string => randomBytes(32).toString('base64url');

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Unspent links kept at most: the oldest is dropped first (a script calling `ui` in a loop). */
const MAX_UNSPENT = 32;

export class UiSessions {
  /** Unspent one-time tokens, oldest first. */
  private readonly tokens: string[] = [];
  private readonly sessions = new Set<string>();
  /** The token for the URL `serve --ui` prints (until it is spent). */
  readonly firstToken = this.issue();

  /** A new one-time token. */
  issue(): string {
    const token = secret();
    this.tokens.push(token);
    if (this.tokens.length > MAX_UNSPENT) this.tokens.shift();
    return token;
  }

  /** A new session id for an unspent token (which is spent), else null. */
  exchange(token: string): string | null {
    const index = this.tokens.findIndex((unspent) => same(token, unspent));
    if (index < 0) return null;
    this.tokens.splice(index, 1);
    const session = secret();
    this.sessions.add(session);
    return session;
  }

  isValid(session: string | undefined): boolean {
    return session !== undefined && this.sessions.has(session);
  }
}
