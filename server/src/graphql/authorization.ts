// Owns the authorization decision of every GraphQL operation: @Roles(rule) (an @Authorized whose roles encode
// the least role per environment and API-key access, common/roles.ts) or an explicit @Public(reason). test/api/authorization.test.ts fails on any Query or Mutation that has neither.
import { Extensions, getMetadataStorage } from 'type-graphql';

const PUBLIC_KEY = 'publicOperation';

/** Marks an operation as deliberately callable without an API key; the reason is kept for reviewers. */
export const Public = (reason: string) => Extensions({ [PUBLIC_KEY]: reason });

const SIGNER_KEY = 'signerOperation';
/**
 * Marks a signer operation (modules/receipt): no API key; the service authorizes the binding cookie of the
 * browser bound to the session named in the arguments (a signer actor).
 */
export const SignerOperation = () => Extensions({ [SIGNER_KEY]: true });

export interface OperationDecision {
  operation: 'Query' | 'Mutation';
  field: string;
  /** 'authorized' (needs a business actor), `public: <reason>`, or null when nothing was declared. */
  decision: string | null;
  /** The @Authorized role list: the access rule of common/roles.ts (@Roles), empty if bare. */
  roles: string[];
}

/** The declared decision of every Query and Mutation field of these resolver classes. */
// biome-ignore lint/complexity/noBannedTypes: TypeGraphQL resolver classes are plain Function values
export function operationDecisions(resolvers: readonly Function[]): OperationDecision[] {
  const storage = getMetadataStorage();
  const ofResolvers = new Set(resolvers);
  const out: OperationDecision[] = [];
  const kinds = [
    ['Query', storage.queries],
    ['Mutation', storage.mutations],
  ] as const;
  for (const [operation, handlers] of kinds) {
    for (const h of handlers) {
      if (!ofResolvers.has(h.target)) continue;
      const field = storage.authorizedFields.find(
        (a) => a.target === h.target && a.fieldName === h.methodName,
      );
      const resolver = storage.authorizedResolver.find((a) => a.target === h.target);
      const authorized = field !== undefined || resolver !== undefined;
      const roles = [...((field ?? resolver)?.roles ?? [])].map(String);
      const publicReason = storage.fieldExtensions.find(
        (e) => e.target === h.target && e.fieldName === h.methodName && PUBLIC_KEY in e.extensions,
      )?.extensions[PUBLIC_KEY];
      const signer = storage.fieldExtensions.some(
        (e) => e.target === h.target && e.fieldName === h.methodName && SIGNER_KEY in e.extensions,
      );
      out.push({
        operation,
        field: h.schemaName,
        decision: authorized
          ? 'authorized'
          : publicReason
            ? `public: ${String(publicReason)}`
            : signer
              ? 'signer: binding cookie of the bound browser'
              : null,
        roles,
      });
    }
  }
  return out;
}
