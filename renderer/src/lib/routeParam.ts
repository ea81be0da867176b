/** One of the route's path parameters as a string, or undefined (absent, or repeated). */
import type { RouteLocationNormalizedLoaded } from 'vue-router';

export function routeParam(route: RouteLocationNormalizedLoaded, name: string): string | undefined {
  const value = route.params[name];
  return typeof value === 'string' ? value : undefined;
}
