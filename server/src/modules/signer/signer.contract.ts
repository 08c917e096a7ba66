// Owns the contract of the hosted transport routes (/t, ADR 0043): the request bodies and answers of the
// wallet protocol and the binding writes, as zod schemas. The routes (all in signer.rest.ts, ADR 0056) carry
// them; `pnpm contract:check` snapshots them beside /v1 (they are not in the public
// OpenAPI document); the hosted page's types are generated from them (tools/transport-types.ts writes
// hosted-web/src/transport.generated.ts). The session itself is read over GraphQL (signerSession, ADR 0041):
// the /t mutations answer a small ack, never the projection.
import { z } from 'zod';
import { AppError, type ErrorCode } from '../../common/errors';
import { SIGNED_DC_API_PROTOCOL } from '../relying-party/jar';
import { SESSION_STATUSES } from '../session/session.machine';
import { ANNEX_C_PROTOCOL } from '../verification/mdoc/annex-c';
import { DC_API_PROTOCOL } from '../verification/request';

const requestId = z.string().regex(/^wreq_[0-9a-z]+$/);
const expires = z.iso
  .datetime()
  .describe('When the request stops being accepted (the step or link deadline).');

export const SandboxPersonaSchema = z
  .object({ id: z.string(), label: z.string(), description: z.string() })
  .meta({ title: 'SandboxPersona', description: 'A test person of the sandbox reference wallet.' });

const walletRequestBase = {
  request_id: requestId,
  expires,
  sandbox_personas: z
    .array(SandboxPersonaSchema)
    .nullable()
    .describe('Sandbox: the test persons that can answer this request; production: null.'),
};

/** POST /t/sessions/{id}/wallet-request: the unsigned OpenID4VP request for the Digital Credentials API. */
export const UnsignedWalletRequestSchema = z
  .object({
    ...walletRequestBase,
    protocol: z.literal(DC_API_PROTOCOL),
    request: z.record(z.string(), z.unknown()).describe('The authorization request object, unchanged.'),
  })
  .describe('An unsigned OpenID4VP request (DC API).');

/** dc_api_signed: data = {request: <JAR>}, answered with {response: <JWE>}. */
export const SignedWalletRequestSchema = z
  .object({
    ...walletRequestBase,
    protocol: z.literal(SIGNED_DC_API_PROTOCOL),
    request: z.object({ request: z.string().describe('The signed request object (JAR, compact JWS).') }),
  })
  .describe('A signed OpenID4VP request for the DC API.');

/** org_iso_mdoc: ISO 18013-7 Annex C, base64url CBOR DeviceRequest and EncryptionInfo. */
export const AnnexCWalletRequestSchema = z
  .object({
    ...walletRequestBase,
    protocol: z.literal(ANNEX_C_PROTOCOL),
    request: z.object({ deviceRequest: z.string(), encryptionInfo: z.string() }),
  })
  .describe('An ISO 18013-7 Annex C request (org-iso-mdoc).');

/** cross_device: the openid4vp:// link (client_id + request_uri) and its QR code as SVG. */
export const CrossDeviceRequestSchema = z
  .object({
    ...walletRequestBase,
    protocol: z.literal('openid4vp'),
    uri: z.string().startsWith('openid4vp://'),
    qr_svg: z.string(),
  })
  .describe('A cross-device OpenID4VP request (QR code / link).');

/** Any wallet request the hosted page may ask for, told apart by `protocol`. */
export const AnyWalletRequestSchema = z.discriminatedUnion('protocol', [
  UnsignedWalletRequestSchema,
  SignedWalletRequestSchema,
  AnnexCWalletRequestSchema,
  CrossDeviceRequestSchema,
]);

/**
 * The page's signerSession read as a /t route carries it (ADR 0062 and its amendment): the GraphQL request the
 * page would have sent to /graphql. Only a compiled page read of the route's own session is accepted
 * (signer.page-reads.ts `readOf`); anything else is validation_failed, before anything is written.
 */
export const SignerReadRequestSchema = z
  .object({
    query: z.string().describe('The page’s operations document (hosted-web/src/graphql/signer.graphql).'),
    operationName: z.string().optional().describe('SignerSession.'),
    variables: z.record(z.string(), z.unknown()).describe('{ sessionId }: the session of the route.'),
  })
  .meta({
    title: 'SignerReadRequest',
    description:
      'The page’s signerSession read (its GraphQL request), answered by the route that carries it.',
  });

/** POST /t/sessions/{id}/wallet-response: the wallet's answer to one open request of the current step. */
export const WalletResponseRequestSchema = z.object({
  request_id: z.string({ error: 'request_id is required.' }),
  response: z.unknown().describe('What the wallet answered (OpenID4VP response parameters), unchanged.'),
  read: SignerReadRequestSchema.optional().describe(
    'The page’s signerSession read after the answer: with it the route answers 200 with that read’s GraphQL ' +
      'response (read in the completion’s own round trip) instead of the ack (ADR 0062 amendment).',
  ),
});

/**
 * What a /t mutation (start, wallet response) answers without a carried read: where the session is now. With
 * the page's read (SignerReadRequest) they answer that read's GraphQL response instead (ADR 0062 amendment).
 */
export const TransportAckSchema = z
  .object({
    status: z.enum(SESSION_STATUSES),
    current_stage: z.number().int().nonnegative(),
  })
  .describe('The session after a /t mutation: its status and stage.');

/** POST /t/sessions/{id}/documents/{position}/shown. */
export const DocumentsShownSchema = z.object({
  shown_to_end: z.array(z.number().int().nonnegative()).describe('Positions recorded for this step.'),
  all_shown: z.boolean(),
});

/** What asking for a wallet request can answer besides success. */
export const WALLET_REQUEST_ERRORS: ErrorCode[] = [
  'not_found',
  'validation_failed',
  'session_bound_elsewhere',
  'session_expired',
  'session_state_conflict',
  'documents_not_shown',
  'protocol_not_offered',
];

export type UnsignedWalletRequest = z.infer<typeof UnsignedWalletRequestSchema>;
export type SignedWalletRequest = z.infer<typeof SignedWalletRequestSchema>;
export type AnnexCWalletRequest = z.infer<typeof AnnexCWalletRequestSchema>;
export type CrossDeviceRequest = z.infer<typeof CrossDeviceRequestSchema>;
export type AnyWalletRequest = z.infer<typeof AnyWalletRequestSchema>;
export type TransportAck = z.infer<typeof TransportAckSchema>;
export type DocumentsShown = z.infer<typeof DocumentsShownSchema>;
export type WalletResponseSubmission = z.infer<typeof WalletResponseRequestSchema>;

/**
 * The schemas the hosted page gets types for (tools/transport-types.ts), by the name it imports. Every
 * schema here is also on a route's contract, so `contract:check` covers what the page is typed against.
 */
export const TRANSPORT_TYPES = {
  WalletRequest: UnsignedWalletRequestSchema,
  SignedWalletRequest: SignedWalletRequestSchema,
  AnnexCWalletRequest: AnnexCWalletRequestSchema,
  CrossDeviceRequest: CrossDeviceRequestSchema,
  WalletResponseSubmission: WalletResponseRequestSchema,
  SignerReadRequest: SignerReadRequestSchema,
  TransportAck: TransportAckSchema,
  DocumentsShown: DocumentsShownSchema,
} as const;

/** The wallet-response body, or `validation_failed` naming the field (as every body of this service). */
export function parseWalletResponse(body: unknown): WalletResponseSubmission {
  const r = WalletResponseRequestSchema.safeParse(body);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new AppError('validation_failed', issue?.message ?? 'The wallet response is invalid.', {
    param: String(issue?.path[0] ?? 'body'),
  });
}
