// Owns the role model of dashboard users and the per-operation authorization rules (ADR 0011).
// A rule names the least role needed in each environment, and whether (and with which scope) an API key may
// call the operation. Production needs more than sandbox: a developer builds in sandbox, an admin ships.
import { Authorized } from 'type-graphql';
import type { Environment } from '../config/config';
import type { Actor } from './context';
import { AppError } from './errors';
/** Dashboard roles, least first (ADR 0011). */
export const ROLES = ['viewer', 'developer', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export const API_KEY_SCOPES = ['sessions:create', 'sessions:read', 'sessions:write', 'audits:read'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const roleRank = (r: Role): number => ROLES.indexOf(r);
export const atLeast = (have: Role, need: Role): boolean => roleRank(have) >= roleRank(need);

export interface AccessRule {
  sandbox: Role;
  production: Role;
  /** API keys may call it too: `true` for any key, or the scope the key needs. */
  apiKey?: true | ApiKeyScope;
}

/** The rules used across resolvers. */
export const RULES = {
  /** Reading the business's configuration and history. */
  read: { sandbox: 'viewer', production: 'viewer' },
  /** Changing workflows, webhooks, keys, deliveries: developers in sandbox, admins in production. */
  build: { sandbox: 'developer', production: 'admin' },
  /** Managing people. */
  people: { sandbox: 'admin', production: 'admin' },
  /** The signed-in user's own account (sessions, passkeys): any role. */
  self: { sandbox: 'viewer', production: 'viewer' },
} as const satisfies Record<string, AccessRule>;

const encode = (rule: AccessRule): string[] => [
  `sandbox:${rule.sandbox}`,
  `production:${rule.production}`,
  ...(rule.apiKey ? [rule.apiKey === true ? 'api_key' : `api_key:${rule.apiKey}`] : []),
];

/**
 * Declares who may call a GraphQL operation (an @Authorized() carrying the rule as its role list, so the
 * authorization-enumeration test can read it back).
 */
export const Roles = (rule: AccessRule) => Authorized(encode(rule));

/** Parses @Authorized role strings back into a rule; null when the list is empty (no rule declared). */
export function decodeRule(roles: readonly string[]): AccessRule | null {
  let sandbox: Role | undefined;
  let production: Role | undefined;
  let apiKey: AccessRule['apiKey'];
  for (const r of roles) {
    const [head, ...rest] = r.split(':');
    const tail = rest.join(':');
    if (head === 'sandbox') sandbox = tail as Role;
    else if (head === 'production') production = tail as Role;
    else if (head === 'api_key') apiKey = tail ? (tail as ApiKeyScope) : true;
  }
  if (!sandbox || !production) return null;
  return { sandbox, production, ...(apiKey ? { apiKey } : {}) };
}

/** Operations declared with a bare @Authorized() (no rule) get the conservative `build` rule. */
const DEFAULT_RULE: AccessRule = RULES.build;

/** Decides an actor against a rule: true, or throws a stable AppError. */
export function checkAccess(actor: Actor, roles: readonly string[]): true {
  const rule = decodeRule(roles) ?? DEFAULT_RULE;
  if (actor.kind === 'api_key') {
    if (!rule.apiKey) throw new AppError('dashboard_user_required');
    if (rule.apiKey !== true) requireScope(actor, rule.apiKey);
    return true;
  }
  if (actor.kind === 'dashboard') {
    const need = actor.environment === 'production' ? rule.production : rule.sandbox;
    if (!actor.role || !atLeast(actor.role, need))
      throw new AppError(
        'role_insufficient',
        `This needs the ${need} role (or higher) in ${actor.environment}; you are ${actor.role ?? 'no member'}.`,
      );
    return true;
  }
  throw new AppError('unauthenticated', 'Sign in to the dashboard, or send a valid API key.');
}

/** 403 api_key_scope_missing unless the key is a full key or carries the scope. */
export function requireScope(actor: Actor, scope: ApiKeyScope): void {
  if (actor.kind !== 'api_key') return;
  if (actor.scopes && !actor.scopes.includes(scope))
    throw new AppError('api_key_scope_missing', `This API key lacks the scope ${scope}.`, {
      extra: { required_scope: scope },
    });
}

export const isEnvironment = (v: unknown): v is Environment => v === 'sandbox' || v === 'production';
