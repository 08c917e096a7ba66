// age_verify: whether the person is at least `threshold` years old, and nothing else (data minimisation).
import type { DcqlQuery } from 'dcql';
import { AppError } from '../../../common/errors';
import {
  ageOverClaimOf,
  buildAgeDcqlQuery,
  DISCLOSED_IDENTIFY_CLAIMS,
  PID_VCT,
  StepQueryMemo,
} from '../../verification/dcql';
import {
  ageOverElement,
  dcqlQueryWithAlternatives,
  MDOC_AV,
  MDOC_ID_PASS,
  MDOC_MDL,
  MDOC_PHOTO_ID,
  MDOC_PID,
  mdocAgeQuery,
} from '../../verification/mdoc/mdoc-query';
import { buildWalletRequest, CREDENTIAL_QUERY_ID } from '../../verification/request';
import {
  type CredentialQueryInput,
  MDOC_QUERY_IDS,
  SD_JWT_OR_MDOC,
  withBindingClaims,
} from './request-parts';
import type { PrimitiveSpec, VerifiedPresentation } from './spec';

/** The result field an age_verify condition tests: whether the person is at least the threshold. */
export const AGE_CONDITION_CLAIM = 'over';

/** The highest age_verify threshold an mdoc can answer (ISO 18013-5 `age_over_NN` has two digits). */
export const MDOC_MAX_AGE_THRESHOLD = 99;

/** The query per threshold and binding claims (claim names hold no space). */
const queries = new StepQueryMemo();

/** The age query: the SD-JWT VC PID, then (up to 99) the age attestation and the mdocs that carry age_over_NN. */
function ageQuery(threshold: number, binding: readonly string[]): DcqlQuery {
  const sdJwt = withBindingClaims(
    buildAgeDcqlQuery(CREDENTIAL_QUERY_ID, PID_VCT, threshold).credentials[0] as CredentialQueryInput,
    binding.map((c) => [c]),
  );
  // ISO 18013-5 names age statements with two digits (age_over_NN): above 99 only the SD-JWT VC can answer.
  // Among the mdocs the age-verification attestation comes first: it discloses nothing but the age statement.
  const mdoc =
    threshold <= MDOC_MAX_AGE_THRESHOLD
      ? [
          // the age-verification attestation carries no identity: presented with another key, it cannot bind
          mdocAgeQuery(MDOC_QUERY_IDS.av, MDOC_AV.doctype, threshold),
          ...(
            [
              [MDOC_QUERY_IDS.pid, MDOC_PID],
              [MDOC_QUERY_IDS.mdl, MDOC_MDL],
              [MDOC_QUERY_IDS.photoId, MDOC_PHOTO_ID],
              [MDOC_QUERY_IDS.idPass, MDOC_ID_PASS],
            ] as const
          ).map(([id, doc]) =>
            withBindingClaims(
              mdocAgeQuery(id, doc.doctype, threshold),
              binding.map((c) => [doc.namespace, c]),
            ),
          ),
        ]
      : [];
  return dcqlQueryWithAlternatives([sdJwt, ...mdoc]);
}

export const ageVerify: PrimitiveSpec<'age_verify'> = {
  name: 'age_verify',
  bit: 2,
  graphqlField: 'ageVerify',
  fields: ['threshold'],
  example: { threshold: 18 },
  validate(s, { bad }) {
    if (!Number.isInteger(s.threshold) || (s.threshold as number) < 1 || (s.threshold as number) > 120)
      throw bad('age_verify needs an integer threshold between 1 and 120.', 'threshold');
    return { threshold: s.threshold };
  },
  windowMinutes: 3,
  formats: SD_JWT_OR_MDOC,
  request(step, nonce, ctx) {
    const threshold = step.threshold as number;
    const binding = ctx.bindingClaims ?? [];
    const dcqlQuery = queries.get(`${threshold} ${binding.join(' ')}`, () => ageQuery(threshold, binding));
    return buildWalletRequest({ nonce, dcqlQuery });
  },
  result(step, v) {
    const threshold = step.threshold as number;
    return { over: ageAnswer(threshold, v).over, threshold };
  },
  sealsEvidence: true,
  auditFacts: (step, v) => ({ age_basis: ageAnswer(step.threshold as number, v).basis }),
  auditStatus: 'outcome',
  conditions: { claims: () => [AGE_CONDITION_CLAIM], valueOf: (result, claim) => result[claim] },
  annexC: true,
  // an age check discloses no identity: later steps bind by the same key only
  holder: { disclosedClaims: () => [], claimsIn: 'evidence' },
  needsDocuments: false,
  ui: { title: 'steps.age', heading: 'step.headAge' },
};

/**
 * over from the age-over claim when the wallet disclosed it, else from the birth date at verification time.
 * A person under the threshold completes the step with over: false (the business decides what follows).
 */
function ageAnswer(threshold: number, v: VerifiedPresentation): { over: boolean; basis: string } {
  // SD-JWT VC: age_over_<n>; mdoc: the ISO element age_over_NN (two digits, so age_over_05 for 5).
  const ageOver = [ageOverClaimOf(threshold), ageOverElement(threshold)].find((c) => c in v.claims);
  if (ageOver) {
    const value = v.claims[ageOver];
    if (typeof value !== 'boolean') throw new AppError('claims_missing', `${ageOver} is not a boolean.`);
    return { over: value, basis: ageOver };
  }
  const birthPath = DISCLOSED_IDENTIFY_CLAIMS.birth_date.join('.');
  const age = ageOn(v.claims[birthPath], v.verifiedAt);
  if (age === null)
    throw new AppError(
      'claims_missing',
      `Neither ${ageOverClaimOf(threshold)} nor a valid birth_date was disclosed.`,
    );
  return { over: age >= threshold, basis: 'birth_date' };
}

/** Completed years at `now` (UTC) for a YYYY-MM-DD birth date; null when not a real date. */
export function ageOn(birthDate: unknown, now: Date): number | null {
  if (typeof birthDate !== 'string') return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(birthDate);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  if (date > now) return null;
  const beforeBirthday = now.getUTCMonth() + 1 < mo || (now.getUTCMonth() + 1 === mo && now.getUTCDate() < d);
  return now.getUTCFullYear() - y - (beforeBirthday ? 1 : 0);
}
