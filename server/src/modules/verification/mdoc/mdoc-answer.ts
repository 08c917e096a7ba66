// Owns what an mdoc answer says: the issuer-signed elements as JSON values, and the answer to the credential
// query (exactly the requested elements, claim_sets in the verifier's order, ISO 18013-5 age_over_NN
// nearest-statement answers), checked with the dcql library.
import { DateOnly, type Document, type IssuerSignedItem } from '@owf/mdoc';
import {
  type DcqlCredentialQuery,
  type DcqlMdocCredential,
  DcqlPresentationResult,
  type DcqlQuery,
} from 'dcql';
import { base64url } from 'jose';
import { AppError, type ErrorCode } from '../../../common/errors';
import type { AkiAuthority } from '../trusted-authorities';
import { findMdocDocType, MDOC_FORMAT } from './mdoc-query';

type Json = Record<string, unknown>;
const fail = (code: ErrorCode, detail: string, cause?: unknown): never => {
  throw new AppError(code, detail, { cause });
};
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Issuer-signed elements by namespace, as JSON values; a repeated element is refused (which one would count?). */
export function disclosedNamespaces(doc: Document): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const namespaces: Map<string, IssuerSignedItem[]> =
    doc.issuerSigned.issuerNamespaces?.issuerNamespaces ?? new Map();
  for (const [ns, items] of namespaces) {
    const elements: Record<string, unknown> = {};
    for (const item of items) {
      if (Object.hasOwn(elements, item.elementIdentifier)) {
        fail('disclosure_invalid', `The element ${ns}/${item.elementIdentifier} is disclosed twice.`);
      }
      elements[item.elementIdentifier] = toJson(item.elementValue);
    }
    out[ns] = elements;
  }
  return out;
}

/** CBOR element values as JSON: full-date and tdate as ISO strings, byte strings base64url, maps as objects. */
export function toJson(v: unknown): unknown {
  if (v instanceof DateOnly) return v.toISOString();
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return base64url.encode(v);
  if (v instanceof Map) return Object.fromEntries([...v.entries()].map(([k, x]) => [String(k), toJson(x)]));
  if (Array.isArray(v)) return v.map(toJson);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJson(x)]));
  return v;
}

/**
 * Checks the elements against the credential query and returns exactly the requested ones. ISO 18013-5 lets a
 * holder answer `age_over_NN` with the nearest statement it holds (`age_over_MM` true with MM >= NN, or false
 * with MM <= NN); such an answer is accepted as the value of `age_over_NN`.
 */
export function answerQuery(
  credentialQuery: DcqlCredentialQuery.Mdoc,
  dcqlQuery: DcqlQuery,
  doctype: string,
  namespaces: Record<string, Record<string, unknown>>,
  /** The trusted authority the issuer chain matched (trusted-authorities.ts), when the query has any. */
  authority?: AkiAuthority,
): Json {
  const ownNamespace = findMdocDocType(doctype)?.namespace;
  // (helpers at module level, not named closures here: the service runs under tsx, whose keepNames names each
  // one on every call, ADR 0059 amendment 5)
  const claimQueries = credentialQuery.claims ?? [];
  // With claim_sets, the first set (in the verifier's order of preference) whose elements are all disclosed is
  // the answer; without, every requested element must be disclosed.
  const byId = new Map(claimQueries.map((c, i) => [c.id ?? String(i), mdocClaimPath(c)]));
  const sets = credentialQuery.claim_sets ?? [[...byId.keys()]];
  const chosen = sets.find((set) => set.every((id) => isDisclosed(namespaces, byId.get(id))));
  if (!chosen) {
    const missing = (sets[0] ?? [])
      .filter((id) => !isDisclosed(namespaces, byId.get(id)))
      .map((id) => byId.get(id)?.join('/'));
    return fail('claims_missing', `The requested element ${missing.join(', ')} was not disclosed.`);
  }
  // Only the namespace objects are replaced below (never written into), so a copy of the outer object suffices.
  const answered: Record<string, Record<string, unknown>> = { ...namespaces };
  const answer: Json = {};
  for (const id of chosen) {
    const [ns, el] = byId.get(id) as [string, string];
    const value = valueAt(namespaces, [ns, el]);
    answered[ns] = { ...(answered[ns] ?? {}), [el]: value };
    answer[ns === ownNamespace ? el : `${ns}.${el}`] = fullDateOf(el, value);
  }
  let satisfied = false;
  try {
    const credential: DcqlMdocCredential = {
      credential_format: MDOC_FORMAT,
      doctype,
      namespaces: answered,
      // Holder binding is enforced by policy (a valid device signature is required), so the presentation claims it.
      cryptographic_holder_binding: true,
      ...(authority ? { authority } : {}),
    };
    const result = DcqlPresentationResult.fromDcqlPresentation(
      { [credentialQuery.id]: [credential] },
      { dcqlQuery },
    );
    satisfied = result.credential_matches[credentialQuery.id]?.success === true;
  } catch (e) {
    fail('claims_missing', 'The presentation does not satisfy the query.', e);
  }
  if (!satisfied) fail('claims_missing', 'The presentation does not satisfy the query.');
  return answer;
}

/** The disclosed value at `[namespace, element]`, or the nearest age statement for an `age_over_NN`. */
function valueAt(namespaces: Record<string, Record<string, unknown>>, [ns, el]: [string, string]): unknown {
  return namespaces[ns]?.[el] ?? nearestAgeOver(el, namespaces[ns] ?? {});
}

function isDisclosed(
  namespaces: Record<string, Record<string, unknown>>,
  path: [string, string] | undefined,
): boolean {
  return path !== undefined && valueAt(namespaces, path) !== undefined;
}

/**
 * ISO/IEC 23220-2 (the Photo ID, Apple's Digital ID) may give birth_date as {birth_date: full-date,
 * ? approximate_mask}: the business gets an exact one as the full-date, like the mDL's and the PID's.
 */
function fullDateOf(element: string, value: unknown): unknown {
  // an approximate date (approximate_mask) stays as disclosed: it is not one to compute an age from
  const exact =
    isObject(value) && typeof value.birth_date === 'string' && value.approximate_mask === undefined;
  return element === 'birth_date' && exact ? (value as Json).birth_date : value;
}

/** The ISO 18013-5 answer to `age_over_NN` from the age statements held (undefined: none decides it). */
export function nearestAgeOver(element: string, elements: Record<string, unknown>): boolean | undefined {
  const asked = /^age_over_(\d{2})$/.exec(element);
  if (!asked) return undefined;
  const nn = Number(asked[1]);
  const held = Object.entries(elements)
    .map(([k, v]) => ({ m: /^age_over_(\d{2})$/.exec(k), v }))
    .filter((x): x is { m: RegExpExecArray; v: boolean } => x.m !== null && typeof x.v === 'boolean')
    .map(({ m, v }) => ({ mm: Number(m[1]), v }));
  if (held.some(({ mm, v }) => v && mm >= nn)) return true;
  if (held.some(({ mm, v }) => !v && mm <= nn)) return false;
  return undefined;
}

/** `[namespace, element]` of an mdoc claim query (DCQL `path`, or the older `namespace`/`claim_name` form). */
export function mdocClaimPath(c: NonNullable<DcqlCredentialQuery.Mdoc['claims']>[number]): [string, string] {
  return 'path' in c ? [String(c.path[0]), String(c.path[1])] : [c.namespace, c.claim_name];
}
