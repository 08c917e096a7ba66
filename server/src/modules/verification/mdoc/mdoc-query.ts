// Owns the mso_mdoc side of our requests: the document types we know (EU PID, mDL, EU age verification),
// where the identify claims and age-over elements sit in each, and the DCQL credential queries for them
// (`meta.doctype_value`, claim paths `[namespace, element]`). The request builder (request.ts) chooses between
// SD-JWT VC and mdoc; `dcqlQueryWithAlternatives` asks for "one of" several credential queries.
import type { DcqlQuery } from 'dcql';
import { AppError } from '../../../common/errors';
import { DOCUMENT_STATUS, parseDcqlQuery } from '../dcql';

export const MDOC_FORMAT = 'mso_mdoc' as const;

export interface MdocDocType {
  doctype: string;
  /** The namespace holding the document's elements. */
  namespace: string;
  label: string;
}

export const MDOC_PID: MdocDocType = {
  doctype: 'eu.europa.ec.eudi.pid.1',
  namespace: 'eu.europa.ec.eudi.pid.1',
  label: 'EU PID (mdoc)',
};
export const MDOC_MDL: MdocDocType = {
  doctype: 'org.iso.18013.5.1.mDL',
  namespace: 'org.iso.18013.5.1',
  label: 'Mobile driving licence (ISO 18013-5)',
};
export const MDOC_AV: MdocDocType = {
  doctype: 'eu.europa.ec.av.1',
  namespace: 'eu.europa.ec.av.1',
  label: 'EU age verification attestation',
};
/**
 * Apple's Digital ID (from a passport; ISO/IEC TS 23220-4 Annex C Photo ID): the ISO 23220-2 elements sit in
 * `org.iso.23220.1` (given_name, family_name, birth_date as {birth_date: full-date, ? approximate_mask},
 * nationality, age_over_NN); the Photo ID's own ones (person_id, birth_country…) in `org.iso.23220.photoid.1`.
 */
export const MDOC_PHOTO_ID: MdocDocType = {
  doctype: 'org.iso.23220.photoid.1',
  namespace: 'org.iso.23220.1',
  label: 'Digital ID (ISO 23220 Photo ID; Apple Wallet)',
};
/** Google Wallet's ID pass (Google's sandbox test ID): its own docType, the mDL's namespace and element names. */
export const MDOC_ID_PASS: MdocDocType = {
  doctype: 'com.google.wallet.idcard.1',
  namespace: 'org.iso.18013.5.1',
  label: 'ID pass (Google Wallet)',
};
export const MDOC_DOCTYPES: readonly MdocDocType[] = [
  MDOC_PID,
  MDOC_MDL,
  MDOC_AV,
  MDOC_PHOTO_ID,
  MDOC_ID_PASS,
];

export const findMdocDocType = (doctype: string): MdocDocType | undefined =>
  MDOC_DOCTYPES.find((d) => d.doctype === doctype);

/**
 * Identify claims (the names businesses use, see dcql.ts) -> element in the document's namespace. The PID and
 * the mDL use the same element names; the age-verification attestation carries no identity.
 */
export const MDOC_IDENTIFY_ELEMENTS: Record<string, Readonly<Record<string, string>>> = {
  [MDOC_PID.doctype]: {
    given_name: 'given_name',
    family_name: 'family_name',
    birth_date: 'birth_date',
    nationality: 'nationality',
  },
  [MDOC_MDL.doctype]: {
    given_name: 'given_name',
    family_name: 'family_name',
    birth_date: 'birth_date',
    nationality: 'nationality',
  },
  [MDOC_AV.doctype]: {},
  [MDOC_PHOTO_ID.doctype]: {
    given_name: 'given_name',
    family_name: 'family_name',
    birth_date: 'birth_date',
    nationality: 'nationality',
  },
  [MDOC_ID_PASS.doctype]: {
    given_name: 'given_name',
    family_name: 'family_name',
    birth_date: 'birth_date',
    nationality: 'nationality',
  },
};

/** Age-over thresholds the sandbox documents carry (ISO 18013-5 `age_over_NN`). */
export const MDOC_AGE_OVER_THRESHOLDS: Record<string, readonly number[]> = {
  [MDOC_PID.doctype]: [18, 21],
  [MDOC_MDL.doctype]: [18, 21],
  [MDOC_AV.doctype]: [18],
};

export const ageOverElement = (threshold: number): string => `age_over_${String(threshold).padStart(2, '0')}`;

/**
 * `vp_formats_supported` entry for mso_mdoc in client_metadata (COSE algorithm ids; -7 = ES256, -9 = ESP256,
 * the fully specified ECDSA P-256/SHA-256 of RFC 9864 that HAIP 1.0 lets wallets use beside -7; ADR 0050).
 */
export const MDOC_VP_FORMAT = {
  mso_mdoc: { issuerauth_alg_values: [-7, -9, -35, -36], deviceauth_alg_values: [-7, -9] },
} as const;

type CredentialQueryInput = DcqlQuery.Input['credentials'][number];

/**
 * One mso_mdoc DCQL credential query. `elements` are element names in the document's namespace, or explicit
 * `[namespace, element]` paths. `intent_to_retain` is false: we keep the presentation only as sealed evidence.
 */
export function mdocCredentialQuery(spec: {
  id: string;
  doctype: string;
  elements: readonly (string | readonly [string, string])[];
}): CredentialQueryInput {
  const type = findMdocDocType(spec.doctype);
  const paths = spec.elements.map((e): [string, string] => {
    if (typeof e !== 'string') return [e[0], e[1]];
    if (!type) throw new Error(`unknown mdoc doctype ${spec.doctype}: give [namespace, element] paths`);
    return [type.namespace, e];
  });
  const unique = [...new Map(paths.map((p) => [p.join('\u0000'), p])).values()];
  return {
    id: spec.id,
    format: MDOC_FORMAT,
    meta: { doctype_value: spec.doctype },
    ...(unique.length > 0 ? { claims: unique.map((path) => ({ path, intent_to_retain: false })) } : {}),
  } as CredentialQueryInput;
}

/** The mdoc query for identify claims (document_status needs no element). Unknown claims are refused. */
export function mdocIdentifyQuery(
  id: string,
  doctype: string,
  claims: readonly string[],
): CredentialQueryInput {
  const table = MDOC_IDENTIFY_ELEMENTS[doctype];
  if (!table) throw new Error(`no identify mapping for mdoc doctype ${doctype}`);
  const wanted = claims.filter((c) => c !== DOCUMENT_STATUS);
  const unknown = wanted.filter((c) => !Object.hasOwn(table, c));
  if (unknown.length > 0) {
    throw new AppError(
      'validation_failed',
      `Unsupported identify claim(s) for ${doctype}: ${unknown.join(', ')}.`,
      {
        param: 'claims',
      },
    );
  }
  return mdocCredentialQuery({ id, doctype, elements: wanted.map((c) => table[c] as string) });
}

/** The mdoc query for an age threshold: only the `age_over_NN` element of the document's namespace. */
export function mdocAgeOverQuery(id: string, doctype: string, threshold: number): CredentialQueryInput {
  checkThreshold(threshold);
  return mdocCredentialQuery({ id, doctype, elements: [ageOverElement(threshold)] });
}

/**
 * The mdoc query of the age_verify primitive, like the SD-JWT one (dcql.ts buildAgeDcqlQuery): `claim_sets`
 * prefer `age_over_NN` and fall back to `birth_date` where the document has one (PID, mDL; not the AV
 * attestation). Claim ids `age_over` / `birth_date`; results are keyed by element name (`age_over_18`).
 */
export function mdocAgeQuery(id: string, doctype: string, threshold: number): CredentialQueryInput {
  checkThreshold(threshold);
  const type = findMdocDocType(doctype);
  if (!type) throw new Error(`unknown mdoc doctype ${doctype}`);
  const ageOver = {
    id: 'age_over',
    path: [type.namespace, ageOverElement(threshold)],
    intent_to_retain: false,
  };
  if (!MDOC_IDENTIFY_ELEMENTS[doctype]?.birth_date) {
    return {
      id,
      format: MDOC_FORMAT,
      meta: { doctype_value: doctype },
      claims: [ageOver],
    } as CredentialQueryInput;
  }
  return {
    id,
    format: MDOC_FORMAT,
    meta: { doctype_value: doctype },
    claims: [ageOver, { id: 'birth_date', path: [type.namespace, 'birth_date'], intent_to_retain: false }],
    claim_sets: [['age_over'], ['birth_date']],
  } as CredentialQueryInput;
}

function checkThreshold(threshold: number): void {
  if (!Number.isInteger(threshold) || threshold < 1 || threshold > 99) {
    throw new AppError('validation_failed', 'The age threshold must be an integer from 1 to 99.', {
      param: 'threshold',
    });
  }
}

/**
 * A DCQL query asking for exactly one of the given credential queries (e.g. the SD-JWT VC PID or the mdoc
 * PID): `credential_sets: [{ options: [[a], [b], ...], required: true }]`. Validated with the dcql package.
 */
export function dcqlQueryWithAlternatives(credentials: readonly CredentialQueryInput[]): DcqlQuery {
  if (credentials.length === 0) throw new Error('at least one credential query is needed');
  return parseDcqlQuery({
    credentials: [...credentials],
    ...(credentials.length > 1
      ? { credential_sets: [{ options: credentials.map((c) => [c.id]), required: true }] }
      : {}),
  });
}

/** Whether a step's request offers an mso_mdoc credential query (what Annex C can ask for). */
export const asksForMdoc = (request: Record<string, unknown>): boolean =>
  ((request.dcql_query as { credentials?: { format?: unknown }[] } | undefined)?.credentials ?? []).some(
    (c) => c.format === MDOC_FORMAT,
  );
