// GraphQL types of the signer page (hosted SPA): the status projection of SessionTransport in camelCase, the
// wallet requests the page may ask the /t transport routes for, and the sandbox test persons. No results and
// no personal data. The one read of the hosted page's session: the /t mutations answer acks (ADR 0043).
// Timestamps are ISO strings as the server decided them (the page counts down against `serverTime`).
// Every type here is a plain view object (signer.view.ts): `simpleResolvers`, graphql-js's own property read
// per field instead of TypeGraphQL's middleware wrapper (no field here has a resolver, a role or a middleware),
// which is also what lets the page's fixed reads be compiled (signer.page-operation.ts, ADR 0062).
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { EnvironmentGql } from '../../graphql/scalars';
import { SessionStatusGql } from '../session/session.graphql';
import type { SessionStatus } from '../session/session.machine';
import { PrimitiveGql } from '../workflow/workflow.graphql';
import type { Primitive } from '../workflow/workflow.steps';

export enum BrowserBindingGql {
  none = 'none',
  this_browser = 'this_browser',
  other_browser = 'other_browser',
}
registerEnumType(BrowserBindingGql, {
  name: 'BrowserBinding',
  description:
    'none: not started; this_browser: this browser started it and may act; other_browser: view only.',
});

export enum DeadlineKindGql {
  step = 'step',
  link = 'link',
}
registerEnumType(DeadlineKindGql, {
  name: 'DeadlineKind',
  description: 'step: the running step’s window; link: the session link’s overall expiry (ADR 0029).',
});

export enum WalletTransportGql {
  dc_api = 'dc_api',
  dc_api_signed = 'dc_api_signed',
  org_iso_mdoc = 'org_iso_mdoc',
  cross_device = 'cross_device',
}
registerEnumType(WalletTransportGql, {
  name: 'WalletTransport',
  description: 'How the page reaches a wallet; each is a POST on the /t transport routes (`path`).',
});

@ObjectType('SignerBusiness', {
  description: 'Who asks: the branding’s display name, else the business name.',
  simpleResolvers: true,
})
export class SignerBusinessGql {
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true, description: '`#rrggbb`, at least 4.5:1 against white.' })
  accentColor!: string | null;
  @Field(() => String, { nullable: true, description: 'Path of the logo on this service.' })
  logoUrl!: string | null;
}

@ObjectType('SignerDocument', {
  description: 'A document of a sign step as shown before signing.',
  simpleResolvers: true,
})
export class SignerDocumentGql {
  @Field(() => Int) position!: number;
  @Field(() => String) label!: string;
  @Field(() => String, { description: 'Lower-case hex SHA-256 of the exact bytes.' }) sha256!: string;
  @Field(() => Int) size!: number;
  @Field(() => String) contentType!: string;
  @Field(() => Boolean, {
    description: 'The page showed it to its end (recorded by the server, ADR 0029); a reload remembers it.',
  })
  shownToEnd!: boolean;
}

@ObjectType('SignerStep', {
  description: 'One step of the session as the signer sees it before doing it.',
  simpleResolvers: true,
})
export class SignerStepGql {
  @Field(() => Int) stage!: number;
  @Field(() => PrimitiveGql) primitive!: Primitive;
  @Field(() => [String], { nullable: true }) claims!: string[] | null;
  @Field(() => Int, { nullable: true }) threshold!: number | null;
  @Field(() => String, { nullable: true, description: 'attestation: the terms to approve.' })
  terms!: string | null;
  @Field(() => String, { nullable: true, description: 'SHA-256 (hex) of the terms’ UTF-8 text.' })
  termsSha256!: string | null;
  @Field(() => [SignerDocumentGql], { nullable: true, description: 'sign: the documents to sign.' })
  documents!: SignerDocumentGql[] | null;
}

@ObjectType('WalletRequestOffer', {
  description: 'A wallet request the bound browser may ask for now (POST `path`; the answer is single-use).',
  simpleResolvers: true,
})
export class WalletRequestOfferGql {
  @Field(() => WalletTransportGql) transport!: WalletTransportGql;
  @Field(() => String, { description: 'The request’s protocol as the wallet sees it.' }) protocol!: string;
  @Field(() => String, { description: 'The transport route that issues it.' }) path!: string;
}

@ObjectType('SandboxPersona', {
  description: 'A test person of the sandbox reference wallet.',
  simpleResolvers: true,
})
export class SandboxPersonaGql {
  @Field(() => ID) id!: string;
  @Field(() => String) label!: string;
  @Field(() => String) description!: string;
}

@ObjectType('SignerFailure', {
  description:
    'Why a session failed or expired, as GET /v1/sessions/{id} failure_reason says it (no personal data).',
  simpleResolvers: true,
})
export class SignerFailureGql {
  @Field(() => String, {
    description:
      'failed: the refusal or condition code (e.g. age_requirement_not_met); expired: session_expired or step_window_expired.',
  })
  code!: string;
  @Field(() => Int, { nullable: true, description: 'The step (zero-based); null when never started.' })
  stage!: number | null;
  @Field(() => String, { nullable: true, description: 'expired: overall or step; failed: null.' })
  window!: 'overall' | 'step' | null;
}

@ObjectType('SignerSession', {
  description: 'The signer page’s view of a session: its status projection (no results, no personal data).',
  simpleResolvers: true,
})
export class SignerSessionGql {
  @Field(() => ID) id!: string;
  @Field(() => SessionStatusGql) status!: SessionStatus;
  @Field(() => Boolean, {
    description:
      'True once the status is terminal (completed, stopped, failed, expired: the state machine’s).',
  })
  ended!: boolean;
  @Field(() => EnvironmentGql) environment!: 'sandbox' | 'production';
  @Field(() => SignerBusinessGql) business!: SignerBusinessGql;
  @Field(() => String) workflowName!: string;
  @Field(() => [SignerStepGql]) steps!: SignerStepGql[];
  @Field(() => Int) currentStage!: number;
  @Field(() => [Int]) completedStages!: number[];
  @Field(() => String) expires!: string;
  @Field(() => String, { nullable: true, description: 'Absent when nothing can run out.' })
  deadline!: string | null;
  @Field(() => DeadlineKindGql, { nullable: true }) deadlineKind!: DeadlineKindGql | null;
  @Field(() => String, { description: 'The service’s clock at this answer.' }) serverTime!: string;
  @Field(() => BrowserBindingGql) binding!: BrowserBindingGql;
  @Field(() => String, { nullable: true, description: 'Only once ended: the business’s page to go back to.' })
  returnUrl!: string | null;
  @Field(() => Int, { nullable: true, description: 'After a refused wallet answer: answers still accepted.' })
  triesLeft!: number | null;
  @Field(() => SignerFailureGql, { nullable: true, description: 'Failed or expired: why; else null.' })
  failure!: SignerFailureGql | null;
  @Field(() => [WalletRequestOfferGql], {
    description: 'The bound browser, while a step runs: the wallet requests it may ask for; else empty.',
  })
  walletRequests!: WalletRequestOfferGql[];
  @Field(() => [SandboxPersonaGql], {
    description:
      'Sandbox, bound browser, while a step runs: the test persons that can answer it; else empty.',
  })
  sandboxPersonas!: SandboxPersonaGql[];
}
