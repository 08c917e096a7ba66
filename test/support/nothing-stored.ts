// The one check that a refused wallet answer stored nothing of its step: the session as the business reads it
// (its status and results), and the rows behind it (step results, audit records, evidence, step.completed
// events), each exactly what the steps completed before left.
import { expect } from 'vitest';
import { AuditRecordEntity } from '../../server/src/modules/audit/audit-record.entity';
import { StepEvidenceEntity } from '../../server/src/modules/evidence/step-evidence.entity';
import { StepResultEntity } from '../../server/src/modules/session/step-result.entity';
import { WebhookEventEntity } from '../../server/src/modules/webhook/webhook-event.entity';
import type { Api, TestService } from './harness';

export interface NothingStoredOptions {
  /** Steps completed before the refused answer (default 0). */
  completedBefore?: number;
  /** The status the session is left in (default in_progress); null: not checked. */
  status?: string | null;
  /**
   * Evidence rows expected (default 0 when nothing completed before; else unchecked, since only some
   * primitives keep evidence).
   */
  evidence?: number;
}

/** Nothing of the refused step was stored: no result, audit record, evidence or step.completed event. */
export async function expectNothingStored(
  t: TestService,
  api: Api,
  id: string,
  opts: NothingStoredOptions = {},
): Promise<void> {
  const { completedBefore = 0, status = 'in_progress' } = opts;
  const evidence = opts.evidence ?? (completedBefore === 0 ? 0 : undefined);
  const read = await api.rest('GET', `/v1/sessions/${id}`);
  expect(read.status).toBe(200);
  if (status !== null) expect(read.body.status).toBe(status);
  expect(read.body.results).toHaveLength(completedBefore);
  const ds = t.svc.ds;
  const count = (entity: Parameters<typeof ds.getRepository>[0]) =>
    ds.getRepository(entity).countBy({ sessionId: id } as never);
  expect(await count(StepResultEntity)).toBe(completedBefore);
  expect(await count(AuditRecordEntity)).toBe(completedBefore);
  if (evidence !== undefined) expect(await count(StepEvidenceEntity)).toBe(evidence);
  const events = await ds.getRepository(WebhookEventEntity).findBy({ sessionId: id });
  expect(events.filter((e) => e.event === 'step.completed')).toHaveLength(completedBefore);
}
