// Operations endpoints: GET /healthz (liveness), GET /readyz (readiness), GET /metrics (Prometheus).
// All three are `public` in the route registry: they show no tenant data; /metrics additionally checks the
// METRICS_TOKEN when one is configured (OpsService.metrics).
import type { RouteRegistry } from '../../common/http';
import { sendJson } from '../../common/http';
import type { OpsService } from './ops.service';

export function registerOpsRoutes(routes: RouteRegistry, ops: OpsService): void {
  routes.add({
    method: 'get',
    path: '/healthz',
    auth: 'public',
    summary: 'Liveness: the process serves HTTP.',
    handler: (_req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      sendJson(res, 200, ops.live());
    },
  });
  routes.add({
    method: 'get',
    path: '/readyz',
    auth: 'public',
    summary:
      'Readiness: database reachable, migrations applied, not shutting down (503 not_ready otherwise).',
    handler: async (_req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      sendJson(res, 200, await ops.ready());
    },
  });
  routes.add({
    method: 'get',
    path: '/metrics',
    auth: 'public',
    summary: 'Prometheus metrics (Bearer METRICS_TOKEN when configured).',
    handler: async (req, res) => {
      const m = await ops.metrics(req.header('authorization'));
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).type(m.contentType).send(m.body);
    },
  });
}
