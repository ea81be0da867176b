/**
 * The route of a view of one org (Triage, Upcoming, Reliability, Handoff): the route, the router, and
 * the org's id from the route ('' while a route without one, the next view's, is coming in).
 */
import { computed } from 'vue';
import { useRoute, useRouter } from 'vue-router';
import { routeParam } from '../lib/routeParam';

export function useOrgRoute() {
  const route = useRoute();
  const router = useRouter();
  const orgId = computed(() => routeParam(route, 'orgId') ?? '');
  return { route, router, orgId };
}
