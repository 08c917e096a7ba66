// Owns encrypted step evidence: envelope encryption (a fresh AES-256 data key per record from the KMS,
// AES-256-GCM content encryption, AAD = session and stage) and the insert-only table step_evidence.
// seal() runs before the completion transaction (it may call the KMS); insert() runs inside it, so the
// evidence exists if and only if the step completed. open() is for auditors and tests; no API exposes it.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { insertRowAtCommit } from '../../db/fast-sql';
import type { KmsProvider } from '../kms/kms';
import { StepEvidenceEntity } from './step-evidence.entity';

export const EVIDENCE_ALG = 'A256GCM';

export interface SealedEvidence {
  row: StepEvidenceEntity;
}

const aadOf = (sessionId: string, stage: number, kind: string) =>
  Buffer.from(`step_evidence|${sessionId}|${stage}|${kind}`, 'utf8');

export class EvidenceService {
  constructor(private readonly deps: { kms: Pick<KmsProvider, 'generateDataKey' | 'decryptDataKey'> }) {}

  async seal(input: {
    sessionId: string;
    businessId: string;
    stage: number;
    kind: string;
    plaintext: Buffer;
    now: Date;
  }): Promise<SealedEvidence> {
    const dataKey = await this.deps.kms.generateDataKey('evidence-encryption');
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', dataKey.plaintext, iv);
    c.setAAD(aadOf(input.sessionId, input.stage, input.kind));
    const ct = Buffer.concat([c.update(input.plaintext), c.final()]);
    dataKey.plaintext.fill(0); // the clear data key is used for this one envelope only
    const row = Object.assign(new StepEvidenceEntity(), {
      sessionId: input.sessionId,
      stage: input.stage,
      businessId: input.businessId,
      kind: input.kind,
      alg: EVIDENCE_ALG,
      kid: dataKey.kid,
      wrappedKey: dataKey.wrapped,
      iv: iv.toString('base64url'),
      ciphertext: ct.toString('base64url'),
      tag: c.getAuthTag().toString('base64url'),
      plaintextSha256: createHash('sha256').update(input.plaintext).digest('hex'),
      createdAt: input.now,
    } satisfies StepEvidenceEntity);
    return { row };
  }

  /** Inside the completion transaction. */
  async insert(m: EntityManager, sealed: SealedEvidence): Promise<void> {
    // in a batched transition it goes with the COMMIT, after the request's consume and the move decided
    // (ADR 0058 amendment); plain INSERT (fast-sql.ts), every column set
    await insertRowAtCommit(m.dataSource, StepEvidenceEntity, sealed.row, m);
  }

  /** Decrypts the evidence of a step (null when the step has none). Throws when it was tampered with. */
  async open(m: EntityManager, sessionId: string, stage: number): Promise<Buffer | null> {
    // sql-lint-allow: session-scope: by (session_id, stage), session ids are unique across tenants (lookup vindex)
    const row = await m.getRepository(StepEvidenceEntity).findOneBy({ sessionId, stage });
    if (!row) return null;
    const key = await this.deps.kms.decryptDataKey(row.kid, row.wrappedKey, m);
    const dc = createDecipheriv('aes-256-gcm', key, Buffer.from(row.iv, 'base64url'));
    dc.setAAD(aadOf(row.sessionId, row.stage, row.kind));
    dc.setAuthTag(Buffer.from(row.tag, 'base64url'));
    return Buffer.concat([dc.update(Buffer.from(row.ciphertext, 'base64url')), dc.final()]);
  }
}
