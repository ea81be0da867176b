/**
 * What a view of one thing named by the route (a dataset, a delivery) loads: the route's ids as
 * strings, and the thing loaded again whenever one of them changes (useViewData: spinner, quiet reload
 * after a sync, stale answers dropped). Every id is in the path, so an id missing means the view is
 * being left, and nothing loads.
 */
import { type ComputedRef, computed } from 'vue';
import { useRoute } from 'vue-router';
import { routeParam } from '../lib/routeParam';
import { type ViewData, useViewData } from './useViewData';

/** The route's ids by name; '' for one the route does not have. */
export type RouteIds<N extends string> = Readonly<Record<N | 'orgId', string>>;

export interface RouteData<N extends string, T> extends ViewData<T> {
  ids: ComputedRef<RouteIds<N>>;
}

export function useRouteData<N extends string, T>(
  names: readonly N[],
  load: (ids: RouteIds<N>) => Promise<T>,
): RouteData<N, T> {
  const route = useRoute();
  const all = ['orgId', ...names.filter((name) => name !== 'orgId')];
  const ids = computed(
    () => Object.fromEntries(all.map((name) => [name, routeParam(route, name) ?? ''])) as RouteIds<N>,
  );
  const view = useViewData(
    all.map((name) => () => routeParam(route, name)),
    () => ids.value.orgId,
    () => load(ids.value),
  );
  return { ids, ...view };
}
