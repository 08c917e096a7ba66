// Owns the route scope of a trust read (ADR 0036, ADR 0058 amendment): the step's allowed routes as a list or as a
// subquery of the trust read itself, its SQL condition, and the trust stamp it may carry (ADR 0063), with the
// cache key of a read made under it.

/**
 * The allowed routes as a subquery (`SELECT id FROM credential_route …`, route-scope.ts allowedRoutesSql), read
 * inside the trust read itself: one statement instead of two per verification (ADR 0058 amendment). `list` reads
 * the routes themselves, only to name them in a refusal.
 */
export interface RouteQuery {
  readonly sql: string;
  readonly params: readonly unknown[];
  list(): Promise<readonly string[]>;
  /**
   * The trust stamp the caller read with its session (trust-version.ts, ADR 0063): set, the trust read may be
   * answered from the store's cache of a read made at the same stamp.
   */
  readonly stamp?: string;
}

/** The route scope of a check: the step's allowed routes (listed, or as a subquery), or every route (undefined). */
export type RouteScope = readonly string[] | RouteQuery | undefined;

const isRouteQuery = (routes: RouteScope): routes is RouteQuery =>
  routes !== undefined && !Array.isArray(routes);

/** The routes of a scope as a list (a subquery's read now); undefined: every route. */
export const routeList = async (routes: RouteScope): Promise<readonly string[] | undefined> =>
  isRouteQuery(routes) ? routes.list() : (routes as readonly string[] | undefined);

/** The route condition of a trust read (a column `route_id`, or `column`), as SQL text and its parameters. */
export const scopeSql = (routes: RouteScope, column = 'route_id'): { where: string; params: unknown[] } => {
  if (routes === undefined) return { where: `${column} IS NOT NULL`, params: [] };
  if (isRouteQuery(routes)) return { where: `${column} IN (${routes.sql})`, params: [...routes.params] };
  const list = routes as readonly string[];
  return list.length === 0
    ? { where: '1 = 0', params: [] }
    : { where: `${column} IN (${list.map(() => '?').join(', ')})`, params: [...list] };
};

/** The stamp a scope carries (undefined: its trust is read every time). */
export const stampOf = (routes: RouteScope): string | undefined =>
  isRouteQuery(routes) ? routes.stamp : undefined;

/** The cache key of a trust read: what it asked for, the scope's SQL text and parameters. */
export const trustKey = (parts: readonly unknown[], scope: { where: string; params: unknown[] }): string =>
  JSON.stringify([...parts, scope.where, scope.params]);

/** The routes of a scope, for a refusal's detail. */
export const routeNames = async (scope: RouteScope) => {
  const routes = await routeList(scope);
  return routes === undefined ? 'any route' : routes.length ? `route ${routes.join(', ')}` : 'no route';
};
