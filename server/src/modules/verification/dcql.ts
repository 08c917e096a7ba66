// Owns the DCQL side of the identify primitive: which claims a business may request, where each one sits in
// a PID SD-JWT VC, and building/validating the DCQL query the verifier sends (validated with the `dcql` package).
import { DcqlQuery } from 'dcql';
import { AppError } from '../../common/errors';

/** The PID credential type the sandbox issuer issues and the identify step asks for by default. */
export const PID_VCT = 'urn:eudi:pid:1';

/**
 * Identify claims that are disclosed by the wallet, with their claim path in the credential. Kept in one table
 * so a change of PID encoding (e.g. `birthdate` / `nationalities` in some PID profiles) is one edit.
 */
export const DISCLOSED_IDENTIFY_CLAIMS = {
  given_name: ['given_name'],
  family_name: ['family_name'],
  birth_date: ['birth_date'],
  nationality: ['nationality'],
} as const satisfies Record<string, readonly string[]>;

/** Not a disclosed claim: the outcome of the status-list check of the presented credential. */
export const DOCUMENT_STATUS = 'document_status';

export type DisclosedIdentifyClaim = keyof typeof DISCLOSED_IDENTIFY_CLAIMS;
export const IDENTIFY_CLAIMS = [...Object.keys(DISCLOSED_IDENTIFY_CLAIMS), DOCUMENT_STATUS] as const;

const isDisclosed = (c: string): c is DisclosedIdentifyClaim => Object.hasOwn(DISCLOSED_IDENTIFY_CLAIMS, c);

/** One dc+sd-jwt credential query for the requested identify claims (document_status needs no disclosure). */
export function buildIdentifyDcqlQuery(credentialQueryId: string, vct: string, claims: string[]): DcqlQuery {
  const unknown = claims.filter((c) => c !== DOCUMENT_STATUS && !isDisclosed(c));
  if (unknown.length > 0) {
    throw new AppError('validation_failed', `Unsupported identify claim(s): ${unknown.join(', ')}.`, {
      param: 'claims',
    });
  }
  const disclosed = [...new Set(claims.filter(isDisclosed))];
  const input: DcqlQuery.Input = {
    credentials: [
      {
        id: credentialQueryId,
        format: 'dc+sd-jwt',
        meta: { vct_values: [vct] },
        ...(disclosed.length > 0
          ? { claims: disclosed.map((c) => ({ path: [...DISCLOSED_IDENTIFY_CLAIMS[c]] })) }
          : {}),
      },
    ],
  };
  return parseDcqlQuery(input);
}

/** Claim-query ids of the age query: an age-over claim for the threshold, else the birth date. */
export const AGE_OVER_CLAIM_ID = 'age_over';
export const BIRTH_DATE_CLAIM_ID = 'birth_date';
export const ageOverClaimOf = (threshold: number): string => `age_over_${threshold}`;

/**
 * One dc+sd-jwt credential query for an age check: `claim_sets` prefer `age_over_<threshold>` (a boolean the
 * wallet can disclose without the birth date) and fall back to `birth_date` when the credential has no such
 * claim. DCQL lets the wallet pick the first claim set it can satisfy.
 */
export function buildAgeDcqlQuery(credentialQueryId: string, vct: string, threshold: number): DcqlQuery {
  if (!Number.isInteger(threshold) || threshold < 1 || threshold > 120)
    throw new AppError('validation_failed', 'The age threshold must be an integer from 1 to 120.', {
      param: 'threshold',
    });
  return parseDcqlQuery({
    credentials: [
      {
        id: credentialQueryId,
        format: 'dc+sd-jwt',
        meta: { vct_values: [vct] },
        claims: [
          { id: AGE_OVER_CLAIM_ID, path: [ageOverClaimOf(threshold)] },
          { id: BIRTH_DATE_CLAIM_ID, path: [...DISCLOSED_IDENTIFY_CLAIMS.birth_date] },
        ],
        claim_sets: [[AGE_OVER_CLAIM_ID], [BIRTH_DATE_CLAIM_ID]],
      },
    ],
  });
}

/** Structural parse plus content validation (unique ids, credential sets, claim sets). Throws on a bad query. */
export function parseDcqlQuery(input: unknown): DcqlQuery {
  const query = DcqlQuery.parse(input as DcqlQuery.Input);
  DcqlQuery.validate(query);
  return query;
}

/** Freezes a parsed query and everything in it: one instance is shared by every verification that reads it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * parseDcqlQuery of the DCQL query of one of our stored requests, memoized by the query's exact JSON text
 * (ADR 0021): the text is the whole input (the query is parsed from the text, not from the object), so the
 * result is a pure function of the key. Every session of a workflow step sends the same query, so the valibot
 * parse and validation run once per distinct query. The result is deep-frozen (shared; the dcql package then
 * builds its matching schemas once per query too). Bounded, oldest out; each verifier owns one.
 */
export class StoredDcqlQueries {
  private readonly queries = new Map<string, DcqlQuery>();

  constructor(private readonly max = 256) {}

  get(input: unknown): DcqlQuery {
    const text = JSON.stringify(input);
    if (typeof text !== 'string') return parseDcqlQuery(input); // not JSON (undefined): refused by the parser
    let query = this.queries.get(text);
    if (!query) {
      query = deepFreeze(parseDcqlQuery(JSON.parse(text)));
      if (this.queries.size >= this.max) this.queries.delete(this.queries.keys().next().value as string);
      this.queries.set(text, query);
    }
    return query;
  }
}

/** Reads the value at a DCQL claim path of string/number segments (null = all array elements is not used here). */
export function claimAt(claims: Record<string, unknown>, path: readonly (string | number | null)[]): unknown {
  let cur: unknown = claims;
  for (const seg of path) {
    if (seg === null || cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

/**
 * Which credential query of our request a vp_token answers, given its keys (credential query ids). We verify
 * exactly one presented credential, so the keys must name exactly one query, and credential_sets decide which
 * ones may be answered: exactly one option of every required set (our requests: one set of single-query
 * alternatives, e.g. the SD-JWT VC PID or the mdoc PID), nothing outside an answered option. Without
 * credential_sets every query is required. An unknown or extra id is presentation_malformed; no answer to a
 * required set is claims_missing.
 */
export function answeredCredentialQuery(
  dcqlQuery: DcqlQuery,
  presentedIds: readonly string[],
): DcqlQuery['credentials'][number] {
  const ids = new Set(presentedIds);
  const known = new Map(dcqlQuery.credentials.map((c) => [c.id, c]));
  for (const id of ids) {
    if (!known.has(id))
      throw new AppError('presentation_malformed', 'The vp_token answers an unknown query.');
  }
  const sets = dcqlQuery.credential_sets ?? [
    { options: [dcqlQuery.credentials.map((c) => c.id)], required: true },
  ];
  const covered = new Set<string>();
  for (const set of sets) {
    const answered = set.options.filter((option) => option.every((id) => ids.has(id)));
    if (answered.length > 1) {
      throw new AppError('presentation_malformed', 'The vp_token answers more than one alternative.');
    }
    const option = answered[0];
    if (!option) {
      if (set.required !== false) {
        throw new AppError(
          'claims_missing',
          'The vp_token has no presentation for the requested credential.',
        );
      }
      continue;
    }
    for (const id of option) covered.add(id);
  }
  if ([...ids].some((id) => !covered.has(id))) {
    throw new AppError(
      'presentation_malformed',
      'The vp_token answers a query outside the chosen alternative.',
    );
  }
  const [only, ...more] = [...ids];
  if (only === undefined || more.length > 0) {
    throw new AppError('presentation_malformed', 'Exactly one credential is expected in the vp_token.');
  }
  return known.get(only) as DcqlQuery['credentials'][number];
}
