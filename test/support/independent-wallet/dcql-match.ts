// The independent wallet's own DCQL matching (OpenID4VP 1.0 §6), written from the specification and sharing no
// code with the verifier's `dcql` package: which credential query of a request a held credential answers, and
// exactly which claims to disclose. Credential queries are tried in the verifier's order of preference (the
// options of the first credential set, else the order of `credentials`); a query matches a credential of its
// format whose type is the query's (`meta.vct_values` for dc+sd-jwt, `meta.doctype_value` for mso_mdoc), and
// with `claim_sets` the first set whose claims the credential holds is disclosed (§6.4.1: "the Wallet SHOULD
// return the first claim set it can satisfy"); without, every claim of the query must be held.

export type Format = 'dc+sd-jwt' | 'mso_mdoc';

export interface ClaimQuery {
  id?: string;
  path: (string | number | null)[];
}

export interface CredentialQuery {
  id: string;
  format: string;
  meta?: { vct_values?: string[]; doctype_value?: string };
  claims?: ClaimQuery[];
  claim_sets?: string[][];
}

export interface DcqlQuery {
  credentials: CredentialQuery[];
  credential_sets?: { options: string[][]; required?: boolean }[];
}

/** What the wallet holds of one credential: its format, type (vct or doctype) and which claim paths it can disclose. */
export interface Holding {
  format: Format;
  type: string;
  holds(path: string[]): boolean;
}

export interface Match<H extends Holding> {
  query: CredentialQuery;
  holding: H;
  /** The claim paths to disclose, in the query's order. */
  paths: string[][];
}

const pathOf = (c: ClaimQuery): string[] => {
  if (!c.path.every((p) => typeof p === 'string')) throw new Error('the wallet discloses named claims only');
  return c.path as string[];
};

/** The credential queries in the verifier's order of preference. */
export function queriesInOrder(dcql: DcqlQuery): CredentialQuery[] {
  if (!Array.isArray(dcql?.credentials) || dcql.credentials.length === 0)
    throw new Error('dcql_query has no credential queries');
  const ids = (dcql.credential_sets?.[0]?.options ?? dcql.credentials.map((c) => [c.id])).flat();
  return ids.map((id) => {
    const q = dcql.credentials.find((c) => c.id === id);
    if (!q) throw new Error(`credential set names an unknown query ${id}`);
    return q;
  });
}

/** The claims of `query` to disclose from `holding`, or undefined when it cannot answer the query. */
export function claimsToDisclose(query: CredentialQuery, holding: Holding): string[][] | undefined {
  if (query.format !== holding.format) return undefined;
  const typeOk =
    holding.format === 'dc+sd-jwt'
      ? (query.meta?.vct_values ?? []).includes(holding.type)
      : query.meta?.doctype_value === holding.type;
  if (!typeOk) return undefined;
  const claims = query.claims ?? [];
  if (!query.claim_sets) {
    const paths = claims.map(pathOf);
    return paths.every((p) => holding.holds(p)) ? paths : undefined;
  }
  const byId = new Map(claims.map((c) => [c.id, pathOf(c)]));
  for (const set of query.claim_sets) {
    const paths = set.map((id) => byId.get(id));
    if (paths.every((p): p is string[] => p !== undefined && holding.holds(p))) return paths;
  }
  return undefined;
}

/** The first credential query (in preference order) of `format` that one of the holdings answers. */
export function matchDcql<H extends Holding>(dcql: DcqlQuery, format: Format, holdings: H[]): Match<H> {
  for (const query of queriesInOrder(dcql)) {
    if (query.format !== format) continue;
    for (const holding of holdings) {
      const paths = claimsToDisclose(query, holding);
      if (paths) return { query, holding, paths };
    }
  }
  throw new Error(`the wallet holds no ${format} credential that answers this request`);
}
