// Thin GraphQL resolver over CatalogService: the same data as GET /v1/catalog and GET /v1/wallets.
import { Query, Resolver } from 'type-graphql';
import { Roles, RULES } from '../../common/roles';
import { PRIMITIVE_SPECS, PRIMITIVES, type Primitive } from '../workflow/primitives';
import { CredentialRouteGql, type PrimitiveFlagsGql, WalletGql } from './catalog.graphql';
import type { CatalogService, PrimitiveFlags, RouteView, WalletView } from './catalog.service';

/** A per-primitive record under the GraphQL field names (PrimitiveSpec.graphqlField). */
const byField = <T>(f: Record<Primitive, T>): Record<string, T> =>
  Object.fromEntries(PRIMITIVES.map((p) => [PRIMITIVE_SPECS[p].graphqlField, f[p]]));
const flags = (f: PrimitiveFlags): PrimitiveFlagsGql => byField(f);

const routeOut = (r: RouteView): CredentialRouteGql => ({
  id: r.id,
  wallet: r.wallet,
  issuer: {
    id: r.issuer.id,
    name: r.issuer.name,
    identifier: r.issuer.identifier,
    country: r.issuer.country,
    sandboxOnly: r.issuer.sandbox_only,
  },
  formats: r.formats,
  primitiveFormats: byField(r.primitive_formats),
  primitiveProtocols: byField(r.primitive_protocols),
  capabilities: flags(r.capabilities),
  identifyClaims: r.identify_claims,
  sandbox: { available: r.sandbox.available, primitives: flags(r.sandbox.primitives) },
  production: {
    available: r.production.available,
    primitives: flags(r.production.primitives),
    acceptance: r.production.acceptance,
  },
  notes: r.notes,
});

const walletOut = (w: WalletView): WalletGql => ({
  ...w,
  sandbox: { available: w.sandbox.available, primitives: flags(w.sandbox.primitives) },
  production: { available: w.production.available, primitives: flags(w.production.primitives) },
});

export function createCatalogResolver(service: CatalogService) {
  @Resolver()
  class CatalogResolver {
    @Roles({ ...RULES.read, apiKey: true })
    @Query(() => [CredentialRouteGql], {
      description: 'Credential routes with per-primitive capability for sandbox and production.',
    })
    async catalog(): Promise<CredentialRouteGql[]> {
      return (await service.routes()).map(routeOut);
    }

    @Roles({ ...RULES.read, apiKey: true })
    @Query(() => [WalletGql], { description: 'Wallets with what their routes offer per environment.' })
    async wallets(): Promise<WalletGql[]> {
      return (await service.wallets()).map(walletOut);
    }
  }
  return CatalogResolver;
}
