// Owns which credential routes' issuer trust may validate a step's credential (ADR 0036): the step's own
// `routes`, or else every route available in the session's environment that offers the step's primitive
// (the same availability rules as the catalog). Read at verification time, never cached: an operator's
// acceptance change or a route's removal takes effect for the next presentation.
import { type DataSource, In } from 'typeorm';
import type { Environment } from '../../config/config';
import { CredentialIssuerEntity, CredentialRouteEntity } from '../catalog/catalog.entities';
import type { WorkflowStep } from '../workflow/workflow.steps';

const PRIMITIVE_PROPERTY = {
  identify: 'identify',
  age_verify: 'ageVerify',
  sign: 'sign',
  attestation: 'attestation',
} as const;

export async function allowedRoutes(
  ds: DataSource,
  step: Pick<WorkflowStep, 'primitive' | 'routes'>,
  environment: Environment,
): Promise<string[]> {
  if (step.routes) return [...step.routes];
  const routes = await ds.getRepository(CredentialRouteEntity).find({
    select: { id: true, issuerId: true },
    where: {
      [PRIMITIVE_PROPERTY[step.primitive]]: true,
      ...(environment === 'production' ? { productionAvailable: true } : { sandboxAvailable: true }),
    },
    order: { id: 'ASC' },
  });
  if (environment === 'sandbox' || routes.length === 0) return routes.map((r) => r.id);
  // production never trusts through a sandbox-only issuer's route, whatever its flags say
  const real = new Set(
    (
      await ds.getRepository(CredentialIssuerEntity).find({
        select: { id: true },
        where: { id: In(routes.map((r) => r.issuerId)), sandboxOnly: false },
      })
    ).map((i) => i.id),
  );
  return routes.filter((r) => real.has(r.issuerId)).map((r) => r.id);
}
