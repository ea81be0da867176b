/**
 * What every successful answer of the local API carries (docs/api.md#headers): `X-Synced-At`, an `ETag`, and
 * 304 when the client already holds that version. Checked only once a request has succeeded, so an
 * error never carries an ETag.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../store/database';
import { getOrg } from '../store/tables/orgs';
import { ApiError } from './errors';

/** The org of the request's key (the v2 and local routes run only after authentication). */
export function orgOf(request: FastifyRequest): string {
  if (!request.auth) throw new ApiError('UNAUTHENTICATED', 'not authenticated');
  return request.auth.orgId;
}

/** The key's org's last successful sync, RFC 3339, or null if never. */
export function syncedAt(store: Store, request: FastifyRequest): string | null {
  return getOrg(store, orgOf(request))?.lastSyncedAt ?? null;
}

/** Sets `ETag` and `X-Synced-At`; answers 304 (and returns true) when If-None-Match holds the tag. */
export function notModified(
  store: Store,
  request: FastifyRequest,
  reply: FastifyReply,
  tag: string,
): boolean {
  reply.header('ETag', tag);
  reply.header('X-Synced-At', syncedAt(store, request) ?? 'never');
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch === undefined) return false;
  // If-None-Match compares weakly (RFC 9110 §13.1.2): W/"x" and "x" are the same version.
  const opaque = (text: string) => text.trim().replace(/^W\//, '');
  const candidates = ifNoneMatch.split(',').map(opaque);
  if (!candidates.includes(opaque(tag)) && !candidates.includes('*')) return false;
  void reply.code(304).send();
  return true;
}

/** Sends the JSON text, or 304 when the client holds the same version. */
export function sendJson(
  store: Store,
  request: FastifyRequest,
  reply: FastifyReply,
  json: string | Buffer,
  tag: string,
): FastifyReply {
  if (notModified(store, request, reply, tag)) return reply;
  return reply.type('application/json; charset=utf-8').send(json);
}

/** FNV-1a: a short, fast, stable fingerprint of a request (not a security boundary). */
export function hashText(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

/** A tag of the body itself: it changes exactly when what the client would read changes. */
export function contentTag(json: string): string {
  return `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
}

/**
 * A weak tag of a body without the fields that only say when it was made (a window's bounds read off the
 * clock, `generatedAt`): they move with every request, so a tag of the whole body would never repeat and
 * a script polling with If-None-Match would never get a 304. Weak (`W/`): the same deadlines, groups or
 * report made a minute later are the same answer (see docs/decisions.md, "Local knowledge API").
 */
export function clockFreeTag(body: object, clockFields: readonly string[], variant = ''): string {
  const rest = Object.fromEntries(Object.entries(body).filter(([key]) => !clockFields.includes(key)));
  return `W/${contentTag(`${variant}\n${JSON.stringify(rest)}`)}`;
}
