// The account audit trail (table account_audit): who changed what in a business, and when. Written inside the
// caller's transaction, so an operation and its audit row commit together or not at all. Used by the accounts
// service and by other modules' dashboard operations (webhook endpoint, secret, redelivery, test event).
import type { EntityManager } from 'typeorm';
import type { Actor } from '../../common/context';
import { newId } from '../../common/ids';
import { AccountAuditEntity } from './accounts.entities';

export interface AuditActor {
  kind: AccountAuditEntity['actorKind'];
  id: string;
}

export interface AccountAuditEntry {
  businessId: string | null;
  actor: AuditActor;
  action: string;
  target?: string | null;
  /** Never a secret: stored as JSON and shown to operators. */
  detail?: Record<string, unknown>;
}

/** Writes one account audit row in the caller's transaction. */
export async function writeAccountAudit(m: EntityManager, at: Date, e: AccountAuditEntry): Promise<void> {
  await m.getRepository(AccountAuditEntity).insert({
    id: newId('acau'),
    businessId: e.businessId,
    actorKind: e.actor.kind,
    actorId: e.actor.id,
    action: e.action,
    target: e.target ?? null,
    detail: e.detail ? JSON.stringify(e.detail) : null,
    createdAt: at,
  });
}

/** Who acted, for the audit row: a dashboard user, or an API key (seeding, internal callers). */
export function auditActorOf(actor: Actor): AuditActor {
  if (actor.kind === 'dashboard') return { kind: 'user', id: actor.userId };
  if (actor.kind === 'api_key') return { kind: 'api_key', id: actor.apiKeyId };
  if (actor.kind === 'system') return { kind: 'system', id: actor.name };
  return { kind: 'system', id: actor.kind };
}
