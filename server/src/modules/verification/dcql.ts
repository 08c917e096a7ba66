// Owns the DCQL side of the identify primitive: which claims a business may request, where each one sits in
// a PID SD-JWT VC, and building/validating the DCQL query the verifier sends (validated with the `dcql` package).
import { DcqlQuery } from 'dcql';
import { Bounded } from '../../common/bounded-map';
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

/**
 * A step's DCQL query, built once per distinct key and shared (deep-frozen) by every request that asks the same:
 * the query of an identify or age_verify step is a pure function of the step's claims or threshold and the
 * binding claims (the nonce sits beside it in the request). Building it parses and validates every credential
 * query with the dcql package twice (the format's own query, then the alternatives): about 33 µs a request,
 * against 2 µs from here (ADR 0068). A query that fails to build throws and is not remembered. Bounded, oldest out.
 */
export class StepQueryMemo {
  private readonly queries: Bounded<DcqlQuery>;

  constructor(max = 256) {
    this.queries = new Bounded(max);
  }

  get(key: string, build: () => DcqlQuery): DcqlQuery {
    return this.queries.get(key) ?? this.queries.keep(key, deepFreeze(build()));
  }
}

/** Freezes a parsed query and everything in it: one instance is shared by every verification that reads it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** One stored query: its JSON text, that text parsed again (the comparand of sameJson), the parsed query. */
interface StoredQuery {
  text: string;
  source: unknown;
  shape: string | undefined;
  query: DcqlQuery;
}

/** Candidates compared per shape before the JSON text is made (a workflow's steps share credential ids). */
const SAME_SHAPE_COMPARED = 4;

/**
 * parseDcqlQuery of the DCQL query of one of our stored requests, memoized by the query's exact JSON text
 * (ADR 0021): the text is the whole input (the query is parsed from the text, not from the object), so the
 * result is a pure function of the key. Every session of a workflow step sends the same query, so the valibot
 * parse and validation run once per distinct query. The result is deep-frozen (shared; the dcql package then
 * builds its matching schemas once per query too). Bounded, oldest out; each verifier owns one.
 *
 * Each verification hands a fresh object (its request row's JSON, parsed). Before making its JSON text (about
 * 15 µs for a 1.8 KB query), it is compared with the few stored queries of the same shape (credential ids) by
 * sameJson (about 2 µs), which holds only if the two have the same JSON text (ADR 0059 amendment 5); anything
 * else, or no such query, takes the text path as before.
 */
export class StoredDcqlQueries {
  private readonly byText = new Map<string, StoredQuery>();
  private readonly byShape = new Map<string, StoredQuery[]>();

  constructor(private readonly max = 256) {}

  get(input: unknown): DcqlQuery {
    const shape = shapeOf(input);
    const candidates = shape === undefined ? undefined : this.byShape.get(shape);
    if (candidates) {
      for (const stored of candidates) if (sameJson(input, stored.source)) return stored.query;
    }
    const text = JSON.stringify(input);
    if (typeof text !== 'string') return parseDcqlQuery(input); // not JSON (undefined): refused by the parser
    let stored = this.byText.get(text);
    if (!stored) {
      const query = deepFreeze(parseDcqlQuery(JSON.parse(text)));
      stored = { text, source: deepFreeze(JSON.parse(text)), shape, query };
      if (this.byText.size >= this.max) this.forget(this.byText.values().next().value as StoredQuery);
      this.byText.set(text, stored);
      if (shape !== undefined) {
        const same = this.byShape.get(shape) ?? [];
        if (same.length < SAME_SHAPE_COMPARED) this.byShape.set(shape, [...same, stored]);
      }
    }
    return stored.query;
  }

  private forget(stored: StoredQuery): void {
    this.byText.delete(stored.text);
    if (stored.shape === undefined) return;
    const rest = (this.byShape.get(stored.shape) ?? []).filter((s) => s !== stored);
    if (rest.length > 0) this.byShape.set(stored.shape, rest);
    else this.byShape.delete(stored.shape);
  }
}

/** The ids of a query's credential queries, as one string: which stored queries to compare it with. */
function shapeOf(input: unknown): string | undefined {
  const credentials = isPlainObject(input) ? input.credentials : undefined;
  if (!Array.isArray(credentials)) return undefined;
  let shape = '';
  for (const c of credentials) {
    const id = isPlainObject(c) ? c.id : undefined;
    if (typeof id !== 'string') return undefined;
    shape += `${id.length}:${id};`;
  }
  return shape;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * Whether JSON.stringify(value) equals JSON.stringify(source), for a `source` made by JSON.parse: only plain
 * JSON values are compared (strings, finite numbers, booleans, null, arrays, plain objects whose own keys come
 * in the same order with no undefined values); anything JSON.stringify would convert, skip or call (undefined,
 * functions, NaN, toJSON, class instances, holes) makes it false, and the caller takes the text path.
 */
export function sameJson(value: unknown, source: unknown): boolean {
  if (value === source) return typeof value !== 'number' || Number.isFinite(value);
  if (typeof value !== 'object' || value === null || typeof source !== 'object' || source === null)
    return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(value)) {
    if (!Array.isArray(source) || Object.getPrototypeOf(value) !== Array.prototype) return false;
    if (value.length !== source.length) return false;
    for (let i = 0; i < value.length; i++) if (!sameJson(value[i], source[i])) return false;
    return true;
  }
  if (!isPlainObject(value) || Array.isArray(source)) return false;
  const sourceKeys = Object.keys(source);
  let i = 0;
  // for-in walks the own keys in JSON.stringify's order; an inherited enumerable key is refused, not skipped
  for (const k in value) {
    if (!Object.hasOwn(value, k) || k !== sourceKeys[i++]) return false;
    if (!sameJson(value[k], (source as Record<string, unknown>)[k])) return false;
  }
  return i === sourceKeys.length;
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
