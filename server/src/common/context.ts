// Owns the explicit context every service method receives: who acts, for which tenant, and the open
// transaction. Only the code that opened a transaction commits it.
import type { EntityManager } from 'typeorm';
import type { Environment } from '../config/config';
import type { Clock } from './clock';

export type Actor =
  | {
      kind: 'api_key';
      apiKeyId: string;
      businessId: string;
      environment: Environment;
      /** The key's scopes (accounts module); absent or null = a full key. */
      scopes?: readonly string[] | null;
    }
  | {
      kind: 'dashboard';
      userId: string;
      businessId: string;
      /** The environment this request acts in (X-Environment header), checked against the role. */
      environment: Environment;
      /** The user's role (accounts module: viewer < developer < admin < owner). */
      role?: 'viewer' | 'developer' | 'admin' | 'owner';
      /** The dashboard sign-in session the request came with. */
      sessionId?: string;
    }
  | { kind: 'signer'; sessionId: string }
  | { kind: 'system'; name: string };

export interface Ctx {
  readonly actor: Actor;
  readonly requestId: string;
  readonly clock: Clock;
  /** The open transaction, when the caller opened one. */
  readonly manager?: EntityManager;
}

/** The tenant a business-scoped actor acts for. Throws for actors without one. */
export function tenantOf(ctx: Ctx): { businessId: string; environment: Environment } {
  const a = ctx.actor;
  if (a.kind === 'api_key' || a.kind === 'dashboard')
    return { businessId: a.businessId, environment: a.environment };
  throw new Error(`actor ${a.kind} has no tenant`);
}

export const withManager = (ctx: Ctx, manager: EntityManager): Ctx => ({ ...ctx, manager });
