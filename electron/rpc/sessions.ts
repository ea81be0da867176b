/**
 * Who may use the web UI of `serve --ui` (DESIGN.md §7): the printed URL carries a one-time token; the
 * first request with it gets a random session id in an HttpOnly, SameSite=Strict cookie, and the token
 * is spent. Reloads keep working through the cookie; a copied URL is worthless once used.
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

export class UiSessions {
  private token: string | null = secret();
  private readonly sessions = new Set<string>();
  /** The token for the printed URL (before it is spent). */
  readonly firstToken = this.token!;

  /** A new session id for the unspent token, else null. */
  exchange(token: string): string | null {
    if (this.token === null || !same(token, this.token)) return null;
    this.token = null;
    const session = secret();
    this.sessions.add(session);
    return session;
  }

  isValid(session: string | undefined): boolean {
    return session !== undefined && this.sessions.has(session);
  }
}
