// Owns what the step's allowed routes (ADR 0036) change in the request a wallet receives (ADR 0050): the DCQL
// `trusted_authorities` built from their trust (trusted-authorities.ts), and whether our signed requests carry
// only the leaf in `x5c` (a route's `x5c_leaf_only`, Germany's rule: when any allowed route asks for it, the one
// request object of the step follows it, since the stricter wallet refuses a longer chain while the others
// still verify the leaf against our root). Read per request, never cached: an operator's change applies to the
// next request.
import { type DataSource, In } from 'typeorm';
import type { Environment } from '../../config/config';
import { CredentialRouteEntity } from '../catalog/catalog.entities';
import type { WorkflowStep } from '../workflow/workflow.steps';
import { allowedRoutes } from './route-scope';
import { type SpeakingMode, speakingFor } from './speaking';
import { type OmittedReason, withTrustedAuthorities } from './trusted-authorities';

type Json = Record<string, unknown>;

export interface RouteRequestRules {
  request: Json;
  leafOnly: boolean;
  /** How the service speaks for the business on these routes (ADR 0052); undefined: the default. */
  speaking: SpeakingMode | undefined;
  /** Credential queries left without trusted_authorities, and why. */
  omitted: Record<string, OmittedReason>;
}

export async function applyRouteRules(
  ds: DataSource,
  step: Pick<WorkflowStep, 'primitive' | 'routes'>,
  environment: Environment,
  request: Json,
): Promise<RouteRequestRules> {
  const routes = await allowedRoutes(ds, step, environment);
  const leafOnly =
    routes.length > 0 &&
    (await ds.getRepository(CredentialRouteEntity).count({ where: { id: In(routes), x5cLeafOnly: true } })) >
      0;
  const ta = await withTrustedAuthorities(ds, request, routes, environment);
  const speaking = await speakingFor(ds, routes, environment);
  return { request: ta.request, leafOnly, speaking, omitted: ta.omitted };
}
