/**
 * The window's places, each a URL (hash history: it works from file:// inside the app and from
 * `serve --ui` alike), so reload, back and shared links all land on the same view.
 */
import { type RouteRecordRaw, type Router, createRouter, createWebHashHistory } from 'vue-router';

export const routes: RouteRecordRaw[] = [
  { path: '/', name: 'home', component: () => import('./views/HomeView.vue') },
  { path: '/orgs/:orgId/datasets', name: 'datasets', component: () => import('./views/DatasetsView.vue') },
  /** `?cause=ID` opens that cause (shared/routes.ts: a grouped notification's target); `?q=` searches. */
  { path: '/orgs/:orgId/triage', name: 'triage', component: () => import('./views/TriageView.vue') },
  /** `?groupBy=supplier|dataset|dataProduct&days=7|30|90`: the grouping and the window (docs/architecture.md#reliability). */
  {
    path: '/orgs/:orgId/reliability',
    name: 'reliability',
    component: () => import('./views/ReliabilityView.vue'),
  },
  /** `?hours=1|6|24` (default 6), `supplier=`, `product=`, `risk=1`, `q=`: the window and its filters. */
  { path: '/orgs/:orgId/upcoming', name: 'upcoming', component: () => import('./views/UpcomingView.vue') },
  /** `?since=4h|8h|12h|24h`, another duration (`90m`, `2d`) or an RFC 3339 time (default 8h). */
  { path: '/orgs/:orgId/handoff', name: 'handoff', component: () => import('./views/HandoffView.vue') },
  {
    path: '/orgs/:orgId/datasets/:datasetId',
    name: 'dataset',
    component: () => import('./views/DatasetView.vue'),
  },
  {
    path: '/orgs/:orgId/datasets/:datasetId/deliveries/:deliveryId',
    name: 'delivery',
    component: () => import('./views/DeliveryView.vue'),
  },
  { path: '/settings', name: 'settings', component: () => import('./views/SettingsView.vue') },
  { path: '/:unknown(.*)*', name: 'not-found', component: () => import('./views/NotFoundView.vue') },
];

export function createAppRouter(history = createWebHashHistory()): Router {
  return createRouter({ history, routes });
}
