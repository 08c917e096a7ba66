// Owns what the step's allowed routes (ADR 0036) change in the request a wallet receives (ADR 0050): the DCQL
// `trusted_authorities` built from their trust (trusted-authorities.ts), and whether our signed requests carry
// only the leaf in `x5c` (a route's `x5c_leaf_only`, Germany's rule: when any allowed route asks for it, the one
// request object of the step follows it, since the stricter wallet refuses a longer chain while the others
// still verify the leaf against our root). Read with the trust stamp, cached per instance at that stamp (ADR
// 0063): an operator's change bumps it, so it applies to the next request on every node.
import type { DataSource } from 'typeorm';
import type { Environment } from '../../config/config';
import {
  type CachedRouteTrust,
  type OmittedReason,
  readRouteTrust,
  withTrustedAuthorities,
} from '../verification/trusted-authorities';
import { allowedRoutesSql } from '../workflow/route-scope';
import type { WorkflowStep } from '../workflow/workflow.steps';
import { type SpeakingMode, strictestSpeaking } from './speaking';

type Json = Record<string, unknown>;

export interface RouteRequestRules {
  request: Json;
  leafOnly: boolean;
  /** How the service speaks for the business on these routes (ADR 0053); undefined: the default. */
  speaking: SpeakingMode | undefined;
  /** Credential queries left without trusted_authorities, and why. */
  omitted: Record<string, OmittedReason>;
}

export async function applyRouteRules(
  ds: DataSource,
  step: Pick<WorkflowStep, 'primitive' | 'routes'>,
  environment: Environment,
  request: Json,
  cached?: CachedRouteTrust,
): Promise<RouteRequestRules> {
  // the allowed routes, their leaf-only flag, speaking modes and trust in one statement (ADR 0045 amendment),
  // or none when the request's trust stamp is the one the cached read saw (ADR 0063)
  const trust = await readRouteTrust(ds, allowedRoutesSql(ds, step, environment), environment, cached);
  const ta = withTrustedAuthorities(request, trust);
  return {
    request: ta.request,
    leafOnly: trust.leafOnly,
    speaking: strictestSpeaking(trust.speaking),
    omitted: ta.omitted,
  };
}
