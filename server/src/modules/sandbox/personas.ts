// Owns the reference-wallet personas: who they are, what their PID says and which status/expiry/issuer/holder-key
// situation each one demonstrates. Data only; the sandbox issuer issues from it, the wallet lists it.
import { PID_VCT } from '../verification/dcql';
import { MDOC_AV, MDOC_MDL, MDOC_PID } from '../verification/mdoc/mdoc-query';

export type PersonaId =
  | 'adult'
  | 'minor'
  | 'revoked'
  | 'suspended'
  | 'expired'
  | 'unknown_issuer'
  | 'unknown_holder_key'
  | 'adult_second_device';

export interface Persona {
  id: PersonaId;
  label: string;
  description: string;
  /** Fixed index in the sandbox status list (kept when credentials are re-issued). */
  statusIndex: number;
  /** Token Status List value: 0 valid, 1 revoked, 2 suspended. */
  status: 0 | 1 | 2;
  /** The credential's exp lies in the past. */
  expired?: boolean;
  /** Signed by a key no environment trusts. */
  untrustedIssuer?: boolean;
  /**
   * The wallet proves possession with a key other than the one the credential is bound to (a fresh key for each
   * presentation, never cnf.jwk / the MSO deviceKey): its KB-JWT or device signature does not verify.
   */
  unknownHolderKey?: boolean;
  claims: (now: Date) => { given_name: string; family_name: string; birth_date: string; nationality: string };
}

export const SANDBOX_PID_VCT = PID_VCT;
/** Age-over thresholds the sandbox PID carries as selectively disclosable booleans (`age_over_NN`). */
export const AGE_OVER_THRESHOLDS = [16, 18, 21] as const;
export const DISCLOSABLE_PID_CLAIMS = [
  'given_name',
  'family_name',
  'birth_date',
  'nationality',
  ...AGE_OVER_THRESHOLDS.map((n) => `age_over_${n}` as const),
] as const;

/** `age_over_NN` booleans for a YYYY-MM-DD birth date at `now` (UTC). */
export function ageOverClaims(
  birthDate: string,
  now: Date,
): Record<`age_over_${(typeof AGE_OVER_THRESHOLDS)[number]}`, boolean> {
  const [y, m, d] = birthDate.split('-').map(Number) as [number, number, number];
  const before = now.getUTCMonth() + 1 < m || (now.getUTCMonth() + 1 === m && now.getUTCDate() < d);
  const age = now.getUTCFullYear() - y - (before ? 1 : 0);
  return { age_over_16: age >= 16, age_over_18: age >= 18, age_over_21: age >= 21 };
}

const erika = () => ({
  given_name: 'Erika',
  family_name: 'Mustermann',
  birth_date: '1984-01-12',
  nationality: 'DE',
});

/** A date `years` before `now` (UTC), as YYYY-MM-DD. */
export const yearsBefore = (now: Date, years: number): string => {
  const d = new Date(now.getTime());
  d.setUTCFullYear(d.getUTCFullYear() - years);
  return d.toISOString().slice(0, 10);
};

export const PERSONAS: readonly Persona[] = [
  {
    id: 'adult',
    label: 'Erika Mustermann',
    description: 'Adult with a valid PID (DE, born 1984-01-12).',
    statusIndex: 0,
    status: 0,
    claims: erika,
  },
  {
    id: 'minor',
    label: 'Max Mustermann',
    description: 'Minor with a valid PID (DE, 12 years old).',
    statusIndex: 1,
    status: 0,
    claims: (now) => ({
      given_name: 'Max',
      family_name: 'Mustermann',
      birth_date: yearsBefore(now, 12),
      nationality: 'DE',
    }),
  },
  {
    id: 'revoked',
    label: 'Erika Mustermann (revoked PID)',
    description: 'The PID has been revoked by its issuer (status list value 1).',
    statusIndex: 2,
    status: 1,
    claims: erika,
  },
  {
    id: 'suspended',
    label: 'Erika Mustermann (suspended PID)',
    description: 'The PID is suspended by its issuer (status list value 2).',
    statusIndex: 3,
    status: 2,
    claims: erika,
  },
  {
    id: 'expired',
    label: 'Erika Mustermann (expired PID)',
    description: 'The PID expired a month ago.',
    statusIndex: 4,
    status: 0,
    expired: true,
    claims: erika,
  },
  {
    id: 'unknown_issuer',
    label: 'Erika Mustermann (unknown issuer)',
    description: 'A PID signed by an issuer that no environment trusts.',
    statusIndex: 5,
    status: 0,
    untrustedIssuer: true,
    claims: erika,
  },
  {
    id: 'unknown_holder_key',
    label: 'Erika Mustermann (unknown holder key)',
    description:
      'A valid PID, but the wallet signs with a key the credential is not bound to (key binding invalid).',
    statusIndex: 6,
    status: 0,
    unknownHolderKey: true,
    claims: erika,
  },
  {
    // ADR 0026: the same person with another holder key, so a later step binds to her first step by claims
    id: 'adult_second_device',
    label: 'Erika Mustermann (second device)',
    description:
      'A valid PID of the same person in another wallet: another holder key, the same name and birth date.',
    statusIndex: 7,
    status: 0,
    claims: erika,
  },
];

export const findPersona = (id: string): Persona | undefined => PERSONAS.find((p) => p.id === id);

/**
 * What the reference wallet offers a test person to present: a persona's SD-JWT VC PID (the persona ids
 * above), or its ISO mdoc documents. When a request offers alternatives (DCQL credential_sets), this choice
 * decides the format, like a person picking a credential in a real wallet. `doctypes` are the mdoc documents
 * the choice may present, in no particular order: the request's order of alternatives decides among them.
 */
export interface WalletChoice {
  id: string;
  label: string;
  description: string;
  /** The holder: whose keys and credentials are presented. */
  persona: PersonaId;
  format: 'dc+sd-jwt' | 'mso_mdoc';
  doctypes?: readonly string[];
}

const MDOC_CHOICES: Readonly<Partial<Record<PersonaId, readonly WalletChoice[]>>> = {
  adult: [
    {
      id: 'adult_mdoc',
      label: 'Erika Mustermann (mdoc PID)',
      description:
        'Presents ISO mdoc: the EU PID (eu.europa.ec.eudi.pid.1), or for an age check the EU age-verification attestation.',
      persona: 'adult',
      format: 'mso_mdoc',
      doctypes: [MDOC_PID.doctype, MDOC_AV.doctype],
    },
    {
      id: 'adult_mdl',
      label: 'Erika Mustermann (mobile driving licence)',
      description: 'Presents the ISO 18013-5 mobile driving licence (org.iso.18013.5.1.mDL).',
      persona: 'adult',
      format: 'mso_mdoc',
      doctypes: [MDOC_MDL.doctype],
    },
  ],
  minor: [
    {
      id: 'minor_mdoc',
      label: 'Max Mustermann (mdoc PID)',
      description:
        'Minor (12) presenting ISO mdoc: the EU PID, or for an age check the EU age-verification attestation.',
      persona: 'minor',
      format: 'mso_mdoc',
      doctypes: [MDOC_PID.doctype, MDOC_AV.doctype],
    },
  ],
  revoked: [
    {
      id: 'revoked_mdoc',
      label: 'Erika Mustermann (revoked mdoc PID)',
      description:
        'Presents the ISO mdoc EU PID (or the age-verification attestation), revoked in its Token Status List (CWT).',
      persona: 'revoked',
      format: 'mso_mdoc',
      doctypes: [MDOC_PID.doctype, MDOC_AV.doctype],
    },
    {
      id: 'revoked_mdl',
      label: 'Erika Mustermann (revoked mobile driving licence)',
      description:
        "Presents the mDL, whose identifier is in the issuer's ISO 18013-5 identifier list (revoked).",
      persona: 'revoked',
      format: 'mso_mdoc',
      doctypes: [MDOC_MDL.doctype],
    },
  ],
  suspended: [
    {
      id: 'suspended_mdoc',
      label: 'Erika Mustermann (suspended mdoc PID)',
      description:
        'Presents the ISO mdoc EU PID (or the age-verification attestation), suspended in its Token Status List (CWT).',
      persona: 'suspended',
      format: 'mso_mdoc',
      doctypes: [MDOC_PID.doctype, MDOC_AV.doctype],
    },
  ],
  unknown_holder_key: [
    {
      id: 'unknown_holder_key_mdoc',
      label: 'Erika Mustermann (unknown holder key, mdoc PID)',
      description:
        'Presents the ISO mdoc EU PID (or the age-verification attestation), but the device signature is made with a key other than the MSO device key.',
      persona: 'unknown_holder_key',
      format: 'mso_mdoc',
      doctypes: [MDOC_PID.doctype, MDOC_AV.doctype],
    },
  ],
};

/** Every choice, each persona's SD-JWT VC first and its mdoc choices right after it. */
export const WALLET_CHOICES: readonly WalletChoice[] = PERSONAS.flatMap((p) => [
  { id: p.id, label: p.label, description: p.description, persona: p.id, format: 'dc+sd-jwt' as const },
  ...(MDOC_CHOICES[p.id] ?? []),
]);

export const findWalletChoice = (id: string): WalletChoice | undefined =>
  WALLET_CHOICES.find((c) => c.id === id);
