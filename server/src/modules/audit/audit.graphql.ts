// GraphQL type of an audit record for the dashboard (and API keys with audits:read). The record travels as
// JSON exactly as GET /v1/audits/{id} answers it, so a client can canonicalize it and check the signature
// itself (the dashboard does, in the browser); typed fields beside it are for display only.
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { JSONScalar } from '../../graphql/scalars';

@ObjectType('AuditRecord', {
  description: 'A signed audit record of a completed step (GET /v1/audits/{id}).',
})
export class AuditRecordGql {
  @Field(() => ID) auditId!: string;
  @Field(() => ID) sessionId!: string;
  @Field(() => Int) stage!: number;
  @Field(() => String, { description: 'The key id of service_signature (see the audit public key set).' })
  kid!: string;
  @Field(() => String, {
    description:
      "Lower-case hex SHA-256 of the record's RFC 8785 canonical content (without service_signature), " +
      "as stored; the next record's previous_audit_hash.",
  })
  digest!: string;
  @Field(() => JSONScalar, {
    description:
      'The body of GET /v1/audits/{id}: the signed content plus service_signature {kid, value} ' +
      '(base64url DER ECDSA P-256 over SHA-256 of the canonical content).',
  })
  record!: Record<string, unknown>;
}
