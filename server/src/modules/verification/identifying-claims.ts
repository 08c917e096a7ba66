// The claims that identify a person across credentials and how two values of one compare: pure atoms of what a
// wallet presents, used by the holder binding (signer/holder-binding.ts) and the sealed evidence.
/** The claims that identify a person across credentials, in the names businesses use (dcql.ts). */
export const IDENTIFYING_CLAIMS = ['given_name', 'family_name', 'birth_date'] as const;
export type IdentifyingClaim = (typeof IDENTIFYING_CLAIMS)[number];

/** The identifying claims among a presentation's disclosed claims (SD-JWT paths and mdoc elements share names). */
export function identifyingClaimsOf(
  claims: Record<string, unknown>,
): Partial<Record<IdentifyingClaim, string>> {
  const out: Partial<Record<IdentifyingClaim, string>> = {};
  for (const c of IDENTIFYING_CLAIMS) {
    const v = claims[c];
    if (typeof v === 'string') out[c] = v;
  }
  return out;
}

/**
 * The comparison form of a claim value: Unicode NFC, full case folding (upper then lower case, so "ß" and "SS"
 * agree), whitespace trimmed and runs collapsed to one space. Diacritics are significant ("Müller" is not
 * "Muller"): both credentials come from civil registers, and stripping marks would merge different names.
 */
export function normaliseClaimValue(value: string): string {
  return value.normalize('NFC').trim().replace(/\s+/gu, ' ').toUpperCase().toLowerCase().normalize('NFC');
}

export function sameClaimValue(a: string, b: string): boolean {
  return normaliseClaimValue(a) === normaliseClaimValue(b);
}
