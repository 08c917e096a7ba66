// GraphQL types of the signer's record (hosted done/partial screen). Timestamps are ISO strings as the REST
// answers give them, so the page shows exactly what the server decided.
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum ReceiptAccessGql {
  open = 'open',
  ended = 'ended',
  closed = 'closed',
}
registerEnumType(ReceiptAccessGql, {
  name: 'ReceiptAccess',
  description: 'open; ended (48 hours after the session ended); closed (by the signer, permanently).',
});

@ObjectType('SignedOriginal', { description: 'An original document of a completed sign step.' })
export class SignedOriginalGql {
  @Field(() => Int) position!: number;
  @Field(() => Int) stage!: number;
  @Field(() => String) label!: string;
  @Field(() => String, { description: 'Lower-case hex SHA-256 of the exact bytes.' }) sha256!: string;
  @Field(() => Int) size!: number;
  @Field(() => String) contentType!: string;
  @Field(() => String, { description: 'Download path (bound browser only).' }) url!: string;
}

@ObjectType('ReceiptEmailState')
export class ReceiptEmailStateGql {
  @Field(() => String, { nullable: true, description: 'Masked address of the open code.' })
  codeSentTo!: string | null;
  @Field(() => String, { nullable: true }) codeExpiresAt!: string | null;
  @Field(() => String, { nullable: true }) resendAvailableAt!: string | null;
  @Field(() => Int) codesLeftThisHour!: number;
  @Field(() => [String], { description: 'Masked addresses the receipt was emailed to.' }) sentTo!: string[];
}

@ObjectType('SignerReceipt', { description: 'What the bound browser may do with its session’s record.' })
export class SignerReceiptGql {
  @Field(() => ID) sessionId!: string;
  @Field(() => String) sessionStatus!: string;
  @Field(() => String) environment!: string;
  @Field(() => Boolean) partial!: boolean;
  @Field(() => Int) completedSteps!: number;
  @Field(() => Int) totalSteps!: number;
  @Field(() => ReceiptAccessGql) access!: ReceiptAccessGql;
  @Field(() => String, { nullable: true, description: '48 hours after the terminal state.' })
  accessUntil!: string | null;
  @Field(() => Boolean, { description: 'A receipt PDF download was recorded in this browser.' })
  pdfDownloaded!: boolean;
  @Field(() => Boolean) canClose!: boolean;
  @Field(() => String) receiptUrl!: string;
  @Field(() => [SignedOriginalGql]) originals!: SignedOriginalGql[];
  @Field(() => ReceiptEmailStateGql) email!: ReceiptEmailStateGql;
}

@ObjectType('SessionOriginal', {
  description: "A signed original of a completed sign step, as the business's dashboard downloads it.",
})
export class SessionOriginalGql {
  @Field(() => Int) position!: number;
  @Field(() => Int) stage!: number;
  @Field(() => String, { description: 'The original filename (label).' }) name!: string;
  @Field(() => String) mediaType!: string;
  @Field(() => Int, { description: 'Bytes.' }) size!: number;
  @Field(() => String, { description: 'Lower-case hex SHA-256 of the exact bytes.' }) sha256!: string;
  @Field(() => String, { description: 'Download path (dashboard cookie; environment in the query).' })
  url!: string;
}
