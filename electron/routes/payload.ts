/**
 * What a route is sent (docs/api.md "Route payload") and how a notification is put on its way: the
 * caller's payload, with a Slack-compatible `text` and the ids that name the notification, as one JSON
 * document — a hook's stdin, a webhook's body.
 */
import { TRAY_ROUTE } from '../../shared/rules';
import type { Store } from '../store/database';
import { enqueueOutbox } from '../store/tables/routeOutbox';

/** A notification as its routes get it: a title and a body, and any JSON fields the caller adds. */
export interface RoutePayload {
  title: string;
  body: string;
  [field: string]: unknown;
}

export interface RouteNotification {
  orgId: string;
  /** Names the notification for good (a rule's: `<org>:<rule>:<event>:<hash>`): the same id and route are delivered once. */
  notificationId: string;
  /** The routes its rule names; `tray` is the desktop's and is left out here. */
  routeIds: readonly string[];
  payload: RoutePayload;
}

/**
 * Puts a notification on its way to each of its routes but the tray. Call it inside the transaction that
 * remembers the decision, then `RouteDeliverer.wake()` once it committed. Returns how many deliveries
 * were added: none for a notification and route enqueued before.
 */
export function enqueueRouteDeliveries(store: Store, notification: RouteNotification, now: Date): number {
  const payload = JSON.stringify(notification.payload);
  return enqueueOutbox(
    store,
    notification.routeIds
      .filter((routeId) => routeId !== TRAY_ROUTE)
      .map((routeId) => ({
        orgId: notification.orgId,
        notificationId: notification.notificationId,
        routeId,
        payload,
      })),
    now,
  );
}

/** Slack reads `&`, `<` and `>` as markup (links, mentions): a dataset's name must not become one. */
const slackEscape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** "title — body" (the title alone when there is no body), escaped for Slack. */
export function slackText(title: string, body: string): string {
  return slackEscape(body.trim() === '' ? title : `${title} — ${body}`);
}

/** Names the delivery a document is made for. */
export interface DeliveryIds {
  orgId: string;
  notificationId: string;
  routeId: string;
}

/**
 * The JSON text a route is sent: `text` first (what a chat shows), the ids, then the payload's fields.
 * The document's own fields win over a payload field of the same name.
 */
export function routeDocument(ids: DeliveryIds, payloadJson: string): string {
  const payload = JSON.parse(payloadJson) as Partial<RoutePayload>;
  const title = typeof payload.title === 'string' ? payload.title : '';
  const body = typeof payload.body === 'string' ? payload.body : '';
  const own = {
    text: slackText(title, body),
    notificationId: ids.notificationId,
    orgId: ids.orgId,
    routeId: ids.routeId,
  };
  return JSON.stringify({ ...own, ...payload, ...own });
}
