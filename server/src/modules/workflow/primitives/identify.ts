// identify: the person discloses the requested claims (SD-JWT VC PID, mdoc PID, mDL, photo ID or ID pass).
import { buildIdentifyDcqlQuery, PID_VCT, StepQueryMemo } from '../../verification/dcql';
import {
  dcqlQueryWithAlternatives,
  MDOC_ID_PASS,
  MDOC_MDL,
  MDOC_PHOTO_ID,
  MDOC_PID,
  mdocIdentifyQuery,
} from '../../verification/mdoc/mdoc-query';
import { buildWalletRequest, CREDENTIAL_QUERY_ID } from '../../verification/request';
import { type CredentialQueryInput, MDOC_QUERY_IDS, SD_JWT_OR_MDOC } from './request-parts';
import type { PrimitiveSpec } from './spec';
import { IDENTIFY_CLAIMS, type IdentifyClaim } from './step';

/** identify claims a condition may test (birth_date: use an age_verify step; names are not rules). */
export const IDENTIFY_CONDITION_CLAIMS: readonly string[] = ['nationality', 'document_status'];

/** The query per claim list (step claims, then binding claims, in order): claim names hold no space. */
const queries = new StepQueryMemo();

export const identify: PrimitiveSpec<'identify'> = {
  name: 'identify',
  bit: 1,
  graphqlField: 'identify',
  fields: ['claims'],
  example: { claims: ['given_name', 'family_name'] },
  validate(s, { bad }) {
    const claims = s.claims ?? [];
    if (!Array.isArray(claims) || claims.length === 0)
      throw bad('identify needs at least one claim.', 'claims');
    for (const c of claims)
      if (!IDENTIFY_CLAIMS.includes(c as IdentifyClaim)) throw bad(`unknown claim "${String(c)}".`, 'claims');
    return { claims: [...new Set(claims)] as IdentifyClaim[] };
  },
  windowMinutes: 10,
  formats: SD_JWT_OR_MDOC,
  request(step, nonce, ctx) {
    const claims = [
      ...new Set([
        ...(step.claims ?? []).filter((c) => c !== 'document_status'),
        ...(ctx.bindingClaims ?? []),
      ]),
    ];
    // One of: the SD-JWT VC PID, the mdoc PID, or the mobile driving licence (it carries every identify claim).
    const dcqlQuery = queries.get(claims.join(' '), () =>
      dcqlQueryWithAlternatives([
        buildIdentifyDcqlQuery(CREDENTIAL_QUERY_ID, PID_VCT, claims).credentials[0] as CredentialQueryInput,
        mdocIdentifyQuery(MDOC_QUERY_IDS.pid, MDOC_PID.doctype, claims),
        mdocIdentifyQuery(MDOC_QUERY_IDS.mdl, MDOC_MDL.doctype, claims),
        // Apple's Digital ID and Google's ID pass, last: wallets holding a PID or an mDL answer as before
        mdocIdentifyQuery(MDOC_QUERY_IDS.photoId, MDOC_PHOTO_ID.doctype, claims),
        mdocIdentifyQuery(MDOC_QUERY_IDS.idPass, MDOC_ID_PASS.doctype, claims),
      ]),
    );
    return buildWalletRequest({ nonce, dcqlQuery });
  },
  result(step, v) {
    const claims: Record<string, unknown> = {};
    for (const c of step.claims ?? []) if (c in v.claims) claims[c] = v.claims[c];
    return { claims };
  },
  // the result is the disclosed claims the business asked for: nothing more is kept
  sealsEvidence: false,
  auditFacts: () => ({}),
  auditStatus: 'outcome',
  conditions: {
    claims: (step) => IDENTIFY_CONDITION_CLAIMS.filter((c) => step.claims?.includes(c)),
    valueOf: (result, claim) => (result.claims as Record<string, unknown> | undefined)?.[claim],
  },
  annexC: true,
  holder: { disclosedClaims: (step) => step.claims ?? [], claimsIn: 'result' },
  needsDocuments: false,
  ui: { title: 'steps.identify', heading: 'step.headIdentify' },
};
