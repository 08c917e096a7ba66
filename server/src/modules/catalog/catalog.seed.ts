// The catalog rows seeded at startup (insert-or-ignore on these fixed ids). Availability is honest: only the
// sandbox reference route is usable out of the box, and nothing is available in production until the wallet
// provider, the issuer and this service have accepted the route (CatalogService.setAcceptance).
import { maskOf, PRIMITIVES, type Primitive } from '../workflow/primitives';

export const SANDBOX_WALLET_ID = 'wal_sandbox_reference';
export const SANDBOX_ISSUER_ID = 'iss_sandbox_pid';
export const SANDBOX_ROUTE_ID = 'rte_sandbox_reference';

export interface SeedWallet {
  id: string;
  name: string;
  provider: string;
  description: string;
  platforms: string[];
}

export interface SeedIssuer {
  id: string;
  identifier: string;
  name: string;
  country: string | null;
  description: string;
  sandboxOnly: boolean;
}

export interface SeedRoute {
  id: string;
  walletId: string;
  issuerId: string;
  formats: string[];
  /** The capability set (maskOf the route's primitives). */
  primitives: number;
  sandboxAvailable: boolean;
  notes: string;
}

export const SEED_WALLETS: SeedWallet[] = [
  {
    id: SANDBOX_WALLET_ID,
    name: 'Sandbox reference wallet',
    provider: 'This service',
    description:
      'A software wallet built into the sandbox, with test personas (adult, minor, revoked, expired, unknown issuer, unknown holder key) presenting SD-JWT VC or ISO mdoc. Usable from the hosted page and from code; never accepted in production.',
    platforms: ['web'],
  },
  {
    id: 'wal_eudi_reference',
    name: 'EU Digital Identity Wallet (reference implementation)',
    provider: 'European Commission, EUDI Wallet project',
    description:
      'The open-source reference wallet of the EU Digital Identity Wallet programme, on which national wallets build.',
    platforms: ['android', 'ios'],
  },
  {
    id: 'wal_google_wallet',
    name: 'Google Wallet',
    provider: 'Google',
    description:
      "Holds mobile driving licences and state IDs where the issuing state supports it; presents them through the browser's Digital Credentials API.",
    platforms: ['android'],
  },
  {
    id: 'wal_apple_wallet',
    name: 'Apple Wallet',
    provider: 'Apple',
    description:
      "Holds driver's licences and state IDs of participating US states; presents them through the Digital Credentials API in Safari.",
    platforms: ['ios'],
  },
];

export const SEED_ISSUERS: SeedIssuer[] = [
  {
    id: SANDBOX_ISSUER_ID,
    identifier: '', // {base_url}/sandbox/issuer, set from configuration at every start
    name: 'Sandbox PID issuer',
    country: null,
    description:
      "This service's test issuer for the reference wallet's personas: PID-shaped SD-JWT VCs, and ISO mdocs (EU PID, mobile driving licence, age-verification attestation) under a sandbox IACA. Trusted in the sandbox only.",
    sandboxOnly: true,
  },
  {
    id: 'iss_eudi_pid_test',
    identifier: 'https://issuer.eudiw.dev',
    name: 'EUDI PID issuer (test)',
    country: 'EU',
    description:
      'The test PID issuer of the EUDI Wallet project. It issues test data only, so it can never be used in production.',
    sandboxOnly: true,
  },
  {
    id: 'iss_google_idpass_sandbox',
    identifier: 'google-wallet:id-pass-sandbox',
    name: 'Google Wallet ID pass (sandbox test IDs)',
    country: null,
    description:
      "The test ID passes (com.google.wallet.idcard.1) Google Wallet's sandbox issues to developers. Test data only, so never usable in production; trusted in the sandbox once the operator adds its IACA.",
    sandboxOnly: true,
  },
  {
    id: 'iss_us_mdl',
    identifier: 'aamva-dts:us-mdl',
    name: 'US state mobile driving licence issuers (AAMVA Digital Trust Service)',
    country: 'US',
    description:
      'State motor-vehicle agencies issuing ISO 18013-5 mobile driving licences, trusted through the IACA certificates that AAMVA publishes.',
    sandboxOnly: false,
  },
];

const caps = (...p: Primitive[]) => ({ primitives: maskOf(p) });

/** The sandbox route is owned by code: its formats and capabilities are rewritten at every start. */
export const SANDBOX_ROUTE: SeedRoute = {
  id: SANDBOX_ROUTE_ID,
  walletId: SANDBOX_WALLET_ID,
  issuerId: SANDBOX_ISSUER_ID,
  formats: ['dc+sd-jwt', 'mso_mdoc'],
  ...caps(...PRIMITIVES),
  sandboxAvailable: true,
  notes:
    'Sandbox only: the reference wallet and the sandbox issuer are for testing every primitive and are never accepted in production. Every primitive accepts SD-JWT VC or ISO mdoc (EU PID, mobile driving licence; for age checks also the EU age-verification attestation); sign and attestation bind the documents or terms in the SD-JWT key binding or in the mdoc device-signed data.',
};

export const SEED_ROUTES: SeedRoute[] = [
  SANDBOX_ROUTE,
  {
    id: 'rte_eudi_pid_test',
    walletId: 'wal_eudi_reference',
    issuerId: 'iss_eudi_pid_test',
    formats: ['dc+sd-jwt', 'mso_mdoc'],
    ...caps('identify', 'age_verify'),
    sandboxAvailable: false,
    notes:
      'Sandbox only, off until the operator trusts the EU test issuer in the sandbox (pnpm operator trust-issuer --env sandbox --route rte_eudi_pid_test). The wallet refuses transaction_data types it does not know, so sign and attestation do not work with it.',
  },
  {
    id: 'rte_google_idpass_sandbox',
    walletId: 'wal_google_wallet',
    issuerId: 'iss_google_idpass_sandbox',
    formats: ['mso_mdoc'],
    ...caps('identify', 'age_verify'),
    sandboxAvailable: false,
    notes:
      "Sandbox only, off until the operator trusts the sandbox ID pass's IACA (pnpm operator trust-issuer --env sandbox --route rte_google_idpass_sandbox --doctype com.google.wallet.idcard.1 --iaca <pem>). Google Wallet knows none of our transaction_data types, so sign and attestation do not work with it.",
  },
  {
    id: 'rte_google_us_mdl',
    walletId: 'wal_google_wallet',
    issuerId: 'iss_us_mdl',
    formats: ['mso_mdoc'],
    ...caps('identify', 'age_verify'),
    sandboxAvailable: false,
    notes:
      'Needs the Digital Credentials API (Chrome on Android) and acceptance by the wallet provider, the issuing states and this service before production.',
  },
  {
    id: 'rte_apple_us_mdl',
    walletId: 'wal_apple_wallet',
    issuerId: 'iss_us_mdl',
    formats: ['mso_mdoc'],
    ...caps('identify', 'age_verify'),
    sandboxAvailable: false,
    notes:
      'Listed for planning. Safari presents mdocs over the Digital Credentials API (org-iso-mdoc); production needs acceptance by the wallet provider, the issuing states and this service.',
  },
];
