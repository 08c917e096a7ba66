// Thin /v1 controllers over CatalogService. Both need an API key (any environment): the catalog is the same
// for every business, but it is part of the business API, not a public page (README "Wallets and credentials").
import { z } from 'zod';
import type { RouteRegistry } from '../../common/http';
import { perPrimitive } from '../workflow/primitives';
import type { CatalogService } from './catalog.service';

const primitives = z
  .object(perPrimitive(() => z.boolean()))
  .describe('Per primitive: usable through this route (or wallet) in this environment.');

const acceptance = z
  .object({ provider: z.boolean(), issuer: z.boolean(), service: z.boolean() })
  .describe('Production needs the acceptance of the wallet provider, the issuer and this service.');

export const RouteSchema = z.object({
  id: z.string(),
  wallet: z.object({ id: z.string(), name: z.string(), provider: z.string() }),
  issuer: z.object({
    id: z.string(),
    name: z.string(),
    identifier: z.string().describe('The iss of its credentials (or the name its trust is filed under).'),
    country: z.string().nullable(),
    sandbox_only: z.boolean().describe('A test issuer: its routes never reach production.'),
  }),
  formats: z.array(z.string()).describe('Credential formats: dc+sd-jwt, mso_mdoc.'),
  primitive_formats: z
    .object(perPrimitive(() => z.array(z.string())))
    .describe(
      "Per primitive, the route's formats this service accepts for it (sign and attestation: dc+sd-jwt only).",
    ),
  primitive_protocols: z
    .object(perPrimitive(() => z.array(z.string())))
    .describe(
      'Per primitive, the Digital Credentials API protocols a wallet can answer over: openid4vp, and org-iso-mdoc (ISO 18013-7 Annex C) for mdoc identify and age_verify (Annex C cannot bind the transaction data of sign and attestation).',
    ),
  capabilities: primitives.describe('What the route can do, whatever the environment.'),
  identify_claims: z
    .array(z.string())
    .describe(
      'The claim names an identify step may request over this route (document_status: the status check); empty when the route cannot identify.',
    ),
  sandbox: z.object({ available: z.boolean(), primitives }),
  production: z.object({ available: z.boolean(), primitives, acceptance }),
  notes: z.string(),
});

export const CatalogSchema = z.object({
  environments: z
    .object({ sandbox: primitives, production: primitives })
    .describe('Per environment: whether any available route supports each primitive.'),
  routes: z.array(RouteSchema),
});

export const WalletsSchema = z.object({
  wallets: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      provider: z.string(),
      description: z.string(),
      platforms: z.array(z.string()),
      formats: z.array(z.string()),
      sandbox: z.object({ available: z.boolean(), primitives }),
      production: z.object({ available: z.boolean(), primitives }),
      routes: z.array(z.string()).describe('Ids of the routes of this wallet in GET /v1/catalog.'),
    }),
  ),
});

export function registerCatalogRoutes(reg: RouteRegistry, catalog: CatalogService): void {
  reg.add({
    method: 'get',
    path: '/v1/catalog',
    auth: 'api_key',
    scope: null,
    summary: 'Credential routes (wallet x issuer) with per-primitive capability for sandbox and production',
    contract: {
      operationId: 'getCatalog',
      response: { status: 200, description: 'route catalog', schema: CatalogSchema },
    },
    answer: async () => ({ status: 200, body: await catalog.catalog() }),
  });

  reg.add({
    method: 'get',
    path: '/v1/wallets',
    auth: 'api_key',
    scope: null,
    summary: 'Wallets with what their routes offer in sandbox and production',
    contract: {
      operationId: 'listWallets',
      response: { status: 200, description: 'wallet listing', schema: WalletsSchema },
    },
    answer: async () => ({ status: 200, body: { wallets: await catalog.wallets() } }),
  });
}
