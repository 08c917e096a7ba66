// Owns the route note as the catalog shows it: a first sentence derived from the route's own protocol list
// (primitive_protocols), so the note can never contradict it, then the stored note (seeded or the operator's),
// which says only what the protocols cannot (planning status, what acceptance needs). Seeded notes that once
// made protocol claims of their own are replaced at start when they still hold the old seeded text (ADR 0048).
import type { Primitive } from '../workflow/workflow.steps';

const PROTOCOL_NAMES: Record<string, string> = {
  openid4vp: 'OpenID4VP',
  'org-iso-mdoc': 'org-iso-mdoc (ISO 18013-7 Annex C)',
};

/** "identify and age_verify are requested over OpenID4VP or org-iso-mdoc (…); sign over OpenID4VP." */
export function protocolSentence(protocols: Record<Primitive, string[]>): string {
  const groups = new Map<string, Primitive[]>();
  for (const [p, list] of Object.entries(protocols) as [Primitive, string[]][]) {
    if (list.length === 0) continue;
    const k = list.map((x) => PROTOCOL_NAMES[x] ?? x).join(' or ');
    groups.set(k, [...(groups.get(k) ?? []), p]);
  }
  if (groups.size === 0) return 'No primitive can be requested over this route.';
  const parts = [...groups].map(([over, ps]) => `${ps.join(' and ')} over ${over}`);
  return `This service requests ${parts.join('; ')}.`;
}

/** The note a route answers with: the derived protocol sentence, then the stored note. */
export const routeNotes = (protocols: Record<Primitive, string[]>, stored: string): string =>
  [protocolSentence(protocols), stored.trim()].filter(Boolean).join(' ');

/**
 * Seeded notes of earlier releases that contradicted the route's protocol list; at start a route still holding
 * exactly one of these gets the current seeded note (an operator's own note is never touched).
 */
export const STALE_SEED_NOTES: Record<string, string[]> = {
  rte_eudi_pid_test: [
    "Listed for planning. Sandbox use needs the test issuer's trust anchor configured. The wallet refuses transaction_data types it does not know, so sign and attestation do not work with it.",
  ],
  rte_apple_us_mdl: [
    'Listed for planning. Safari presents mdocs over the org-iso-mdoc protocol of the Digital Credentials API (ISO 18013-7 Annex C); this service requests over OpenID4VP only, so the route needs that protocol first, and then acceptance by the wallet provider, the issuing states and this service before production.',
  ],
};
