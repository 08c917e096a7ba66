// Owns the elements of the sandbox mdoc documents (EU PID, mDL, EU age verification; for tests also the ISO 23220
// Photo ID and Google's ID pass, issued on demand only), from a persona's data:
// dates as CBOR full-date, the sandbox's user-assigned country, no real authority claimed.
import { DateOnly } from '@owf/mdoc';
import {
  MDOC_AV,
  MDOC_ID_PASS,
  MDOC_PHOTO_ID,
  MDOC_PID,
  type MdocDocType,
} from '../../verification/mdoc/mdoc-query';
import type { Persona } from '../personas';

/** ISO 3166 user-assigned "Utopia", as in the ISO 18013-5 test data: no real country is claimed. */
export const SANDBOX_MDOC_COUNTRY = 'UT';

/** Whole years between a YYYY-MM-DD birth date and `now` (UTC). */
export function ageAt(birthDate: string, now: Date): number {
  const [y, m, d] = birthDate.split('-').map(Number) as [number, number, number];
  let age = now.getUTCFullYear() - y;
  if (now.getUTCMonth() + 1 < m || (now.getUTCMonth() + 1 === m && now.getUTCDate() < d)) age -= 1;
  return age;
}

/** The elements of one document, from the persona's data (dates as CBOR full-date). */
export function mdocElementsOf(
  persona: Persona,
  type: MdocDocType,
  now: Date,
  validity: { validFrom: Date; validUntil: Date },
): Record<string, unknown> {
  const data = persona.claims(now);
  const age = ageAt(data.birth_date, now);
  const day = (d: Date) => new DateOnly(d.toISOString().slice(0, 10));
  const common = {
    issuing_country: SANDBOX_MDOC_COUNTRY,
    issuing_authority: 'Credential Verification Sandbox (not a real authority)',
  };
  if (type.doctype === MDOC_AV.doctype) {
    return {
      age_over_18: age >= 18,
      issuance_date: day(validity.validFrom),
      expiry_date: day(validity.validUntil),
      ...common,
    };
  }
  const person = {
    family_name: data.family_name,
    given_name: data.given_name,
    birth_date: new DateOnly(data.birth_date),
    nationality: data.nationality,
    age_over_18: age >= 18,
    age_over_21: age >= 21,
  };
  if (type.doctype === MDOC_PHOTO_ID.doctype) {
    // ISO/IEC 23220-2: birth_date is {birth_date: full-date, ? approximate_mask}; names are Unicode
    return {
      ...person,
      birth_date: new Map([['birth_date', new DateOnly(data.birth_date)]]),
      issue_date: day(validity.validFrom),
      expiry_date: day(validity.validUntil),
      issuing_country: SANDBOX_MDOC_COUNTRY,
      issuing_authority_unicode: common.issuing_authority,
    };
  }
  if (type.doctype === MDOC_ID_PASS.doctype) {
    return {
      ...person,
      issue_date: day(validity.validFrom),
      expiry_date: day(validity.validUntil),
      document_number: `SBX-${persona.statusIndex.toString().padStart(6, '0')}`,
      ...common,
    };
  }
  if (type.doctype === MDOC_PID.doctype) {
    return {
      ...person,
      issuance_date: day(validity.validFrom),
      expiry_date: day(validity.validUntil),
      ...common,
    };
  }
  return {
    ...person,
    issue_date: day(validity.validFrom),
    expiry_date: day(validity.validUntil),
    document_number: `SBX-${persona.statusIndex.toString().padStart(6, '0')}`,
    driving_privileges: [
      {
        vehicle_category_code: 'B',
        issue_date: day(validity.validFrom),
        expiry_date: day(validity.validUntil),
      },
    ],
    un_distinguishing_sign: SANDBOX_MDOC_COUNTRY,
    ...common,
  };
}
