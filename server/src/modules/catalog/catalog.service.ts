// Owns the credential route catalog: which wallet x issuer routes exist, what each can do per primitive, and
// where it may be used. The catalog is data read from the database at runtime (GET /v1/catalog, GET /v1/wallets,
// GraphQL), seeded idempotently at startup. Business rules that live here:
// - production availability of a route always equals provider AND issuer AND service acceptance, and a route
//   of a sandbox-only issuer (the reference wallet's sandbox issuer) can never be accepted for production;
// - a session can only be created when every primitive of its workflow has an available route in the
//   session's environment (assertAvailable, called inside the create transaction).
import { type DataSource, type EntityManager, In } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import type { Environment } from '../../config/config';
import { transactionWithRetry } from '../../db/data-source';
import {
  CredentialIssuerEntity,
  CredentialRouteEntity,
  WalletEntity,
} from '../credential-routes/catalog.entities';
import { ANNEX_C_PROTOCOL } from '../verification/mdoc/annex-c';
import { MDOC_FORMAT } from '../verification/mdoc/mdoc-query';
import { bumpTrustVersion } from '../verification/trust-version';
import { PRIMITIVE_SPECS, perPrimitive } from '../workflow/primitives';
import { PRIMITIVE_FORMATS } from '../workflow/primitives/for-step';
import { IDENTIFY_CLAIMS, PRIMITIVES, type Primitive } from '../workflow/workflow.steps';
import { routeNotes, STALE_SEED_NOTES } from './catalog.notes';
import {
  SANDBOX_ISSUER_ID,
  SANDBOX_ROUTE,
  SANDBOX_ROUTE_ID,
  SEED_ISSUERS,
  SEED_ROUTES,
  SEED_WALLETS,
} from './catalog.seed';

export type PrimitiveFlags = Record<Primitive, boolean>;

export interface RouteAcceptance {
  provider: boolean;
  issuer: boolean;
  service: boolean;
}

/** One route as the API shows it (snake_case, like the rest of /v1). */
export interface RouteView {
  id: string;
  wallet: { id: string; name: string; provider: string };
  issuer: { id: string; name: string; identifier: string; country: string | null; sandbox_only: boolean };
  formats: string[];
  /** Per primitive, the route's formats this service verifies for it (e.g. sign: dc+sd-jwt only). */
  primitive_formats: Record<Primitive, string[]>;
  /**
   * Per primitive, the DC API protocols a wallet of this route can answer over: `openid4vp` whenever the
   * primitive has a format, plus `org-iso-mdoc` (ISO 18013-7 Annex C) where it is answered with an mdoc and
   * Annex C can carry it (identify, age_verify; not sign or attestation, whose transaction data it cannot bind).
   */
  primitive_protocols: Record<Primitive, string[]>;
  /** What the route can do, whatever the environment (a primitive needs one of its formats, above). */
  capabilities: PrimitiveFlags;
  /** The claim names an identify step may request over this route; empty when it cannot identify. */
  identify_claims: string[];
  sandbox: { available: boolean; primitives: PrimitiveFlags };
  production: { available: boolean; primitives: PrimitiveFlags; acceptance: RouteAcceptance };
  notes: string;
}

export interface WalletView {
  id: string;
  name: string;
  provider: string;
  description: string;
  platforms: string[];
  formats: string[];
  /** Union over the wallet's routes: a primitive is true when at least one route of the wallet offers it. */
  sandbox: { available: boolean; primitives: PrimitiveFlags };
  production: { available: boolean; primitives: PrimitiveFlags };
  routes: string[];
}

export interface CatalogView {
  /** Per environment, whether any available route supports each primitive (what a workflow can use). */
  environments: Record<Environment, PrimitiveFlags>;
  routes: RouteView[];
}

const noPrimitives = (): PrimitiveFlags => perPrimitive(() => false);

/** The primitives the route claims (its capability set, credential_route.primitives). */
const capabilitiesOf = (r: Pick<CredentialRouteEntity, 'primitives'>): PrimitiveFlags =>
  perPrimitive((p) => (Number(r.primitives) & PRIMITIVE_SPECS[p].bit) !== 0);

/**
 * A primitive's formats on a route: the route's formats that this service verifies for the primitive
 * (PRIMITIVE_FORMATS), if the route claims the primitive at all. A claimed primitive without such a format
 * (say sign on an mdoc-only route) is not a capability: the service could not verify it.
 */
const formatsByPrimitive = (r: CredentialRouteEntity, formats: string[]): Record<Primitive, string[]> => {
  const claimed = capabilitiesOf(r);
  return Object.fromEntries(
    PRIMITIVES.map((p) => [p, claimed[p] ? formats.filter((f) => PRIMITIVE_FORMATS[p].includes(f)) : []]),
  ) as Record<Primitive, string[]>;
};

/** The DC API protocols per primitive, from its formats on the route (see RouteView.primitive_protocols). */
const protocolsByPrimitive = (formats: Record<Primitive, string[]>): Record<Primitive, string[]> =>
  Object.fromEntries(
    PRIMITIVES.map((p) => [
      p,
      formats[p].length === 0
        ? []
        : [
            'openid4vp',
            ...(formats[p].includes(MDOC_FORMAT) && PRIMITIVE_SPECS[p].annexC ? [ANNEX_C_PROTOCOL] : []),
          ],
    ]),
  ) as Record<Primitive, string[]>;

const masked = (flags: PrimitiveFlags, available: boolean): PrimitiveFlags =>
  Object.fromEntries(PRIMITIVES.map((p) => [p, available && flags[p]])) as PrimitiveFlags;

const union = (a: PrimitiveFlags, b: PrimitiveFlags): PrimitiveFlags =>
  Object.fromEntries(PRIMITIVES.map((p) => [p, a[p] || b[p]])) as PrimitiveFlags;

/**
 * Production availability as the service enforces it: all three acceptances, never for a sandbox-only issuer.
 * The stored column is kept equal to this by every write; reads still AND it in, so a hand-edited row can
 * never open production on its own.
 */
const productionAvailable = (
  r: CredentialRouteEntity,
  issuer: Pick<CredentialIssuerEntity, 'sandboxOnly'>,
): boolean =>
  r.productionAvailable && r.providerAccepted && r.issuerAccepted && r.serviceAccepted && !issuer.sandboxOnly;

/**
 * The primitives routes offer in an environment: the same rules as catalog().environments, for callers that
 * read the route rows themselves (a session create reads them in the statement that reads its workflow).
 */
export function offeredPrimitives(
  routes: readonly { route: CredentialRouteEntity; issuer: Pick<CredentialIssuerEntity, 'sandboxOnly'> }[],
  environment: Environment,
): PrimitiveFlags {
  let offered = noPrimitives();
  for (const { route, issuer } of routes) {
    const primitiveFormats = formatsByPrimitive(route, JSON.parse(route.formats) as string[]);
    const capabilities = Object.fromEntries(
      PRIMITIVES.map((p) => [p, primitiveFormats[p].length > 0]),
    ) as PrimitiveFlags;
    const available = environment === 'sandbox' ? route.sandboxAvailable : productionAvailable(route, issuer);
    offered = union(offered, masked(capabilities, available));
  }
  return offered;
}

/** 409 route_unavailable unless every primitive of the steps is offered (see assertAvailable). */
export function assertPrimitivesOffered(
  offered: PrimitiveFlags,
  environment: Environment,
  steps: readonly { primitive: Primitive }[],
): void {
  const missing = [...new Set(steps.map((s) => s.primitive))].filter((p) => !offered[p]);
  if (missing.length > 0)
    throw new AppError(
      'route_unavailable',
      `No credential route available in ${environment} supports ${missing.join(', ')}; see GET /v1/catalog.`,
      { param: 'workflow_id' },
    );
}

/**
 * Every write to the catalog (wallet, credential_issuer, credential_route) calls this first, in its own
 * transaction: it takes the version row's lock, so a create that checks the version in its INSERT waits for
 * the write and then sees the new number (ADR 0025). A write that skipped it would leave creates on every
 * node trusting what they read of the catalog before it.
 */
export async function bumpCatalogVersion(m: EntityManager): Promise<void> {
  await m.query('UPDATE catalog_version SET version = version + 1 WHERE id = 1');
}

export class CatalogService {
  constructor(private readonly deps: { ds: DataSource; clock: Clock }) {}

  async catalog(m: EntityManager = this.deps.ds.manager): Promise<CatalogView> {
    const routes = await this.routes(m);
    const environments: Record<Environment, PrimitiveFlags> = {
      sandbox: noPrimitives(),
      production: noPrimitives(),
    };
    for (const r of routes) {
      environments.sandbox = union(environments.sandbox, r.sandbox.primitives);
      environments.production = union(environments.production, r.production.primitives);
    }
    return { environments, routes };
  }

  async routes(m: EntityManager = this.deps.ds.manager): Promise<RouteView[]> {
    const [routes, wallets, issuers] = await Promise.all([
      m.getRepository(CredentialRouteEntity).find({ order: { id: 'ASC' } }),
      m.getRepository(WalletEntity).find(),
      m.getRepository(CredentialIssuerEntity).find(),
    ]);
    const walletById = new Map(wallets.map((w) => [w.id, w]));
    const issuerById = new Map(issuers.map((i) => [i.id, i]));
    const views: RouteView[] = [];
    for (const r of routes) {
      const wallet = walletById.get(r.walletId);
      const issuer = issuerById.get(r.issuerId);
      if (!wallet || !issuer) continue; // a dangling route is not offered
      const formats = JSON.parse(r.formats) as string[];
      const primitiveFormats = formatsByPrimitive(r, formats);
      const capabilities = Object.fromEntries(
        PRIMITIVES.map((p) => [p, primitiveFormats[p].length > 0]),
      ) as PrimitiveFlags;
      const prod = productionAvailable(r, issuer);
      views.push({
        id: r.id,
        wallet: { id: wallet.id, name: wallet.name, provider: wallet.provider },
        issuer: {
          id: issuer.id,
          name: issuer.name,
          identifier: issuer.identifier,
          country: issuer.country,
          sandbox_only: issuer.sandboxOnly,
        },
        formats,
        primitive_formats: primitiveFormats,
        primitive_protocols: protocolsByPrimitive(primitiveFormats),
        capabilities,
        identify_claims: capabilities.identify ? [...IDENTIFY_CLAIMS] : [],
        sandbox: { available: r.sandboxAvailable, primitives: masked(capabilities, r.sandboxAvailable) },
        production: {
          available: prod,
          primitives: masked(capabilities, prod),
          acceptance: { provider: r.providerAccepted, issuer: r.issuerAccepted, service: r.serviceAccepted },
        },
        // the protocol sentence is derived from the list above, so the note cannot contradict it
        notes: routeNotes(protocolsByPrimitive(primitiveFormats), r.notes),
      });
    }
    return views;
  }

  async wallets(m: EntityManager = this.deps.ds.manager): Promise<WalletView[]> {
    const [wallets, routes] = await Promise.all([
      m.getRepository(WalletEntity).find({ order: { name: 'ASC' } }),
      this.routes(m),
    ]);
    return wallets.map((w) => {
      const own = routes.filter((r) => r.wallet.id === w.id);
      let sandbox = noPrimitives();
      let production = noPrimitives();
      for (const r of own) {
        sandbox = union(sandbox, r.sandbox.primitives);
        production = union(production, r.production.primitives);
      }
      return {
        id: w.id,
        name: w.name,
        provider: w.provider,
        description: w.description,
        platforms: JSON.parse(w.platforms) as string[],
        formats: [...new Set(own.flatMap((r) => r.formats))].sort(),
        sandbox: { available: own.some((r) => r.sandbox.available), primitives: sandbox },
        production: { available: own.some((r) => r.production.available), primitives: production },
        routes: own.map((r) => r.id),
      };
    });
  }

  /**
   * Refuses (409 route_unavailable) a session whose workflow needs a primitive that no route available in
   * the environment supports. Runs in the caller's transaction, before anything is stored.
   */
  async assertAvailable(
    m: EntityManager,
    environment: Environment,
    steps: readonly { primitive: Primitive }[],
  ): Promise<void> {
    assertPrimitivesOffered((await this.catalog(m)).environments[environment], environment, steps);
  }

  /** Whether our signed requests for the route carry only the leaf in x5c (Germany's rule; ADR 0050). */
  async setX5cLeafOnly(routeId: string, on: boolean): Promise<void> {
    const { ds, clock } = this.deps;
    await transactionWithRetry(ds, async (m) => {
      // read with the routes' trust (readRouteTrust): the trust stamp moves with it (ADR 0063)
      await bumpTrustVersion(m);
      const res = await m
        .getRepository(CredentialRouteEntity)
        .update({ id: routeId }, { x5cLeafOnly: on, updatedAt: clock.now() });
      if (!res.affected) throw new AppError('not_found', 'No route with this id.');
    });
  }

  /**
   * Opens a route in the sandbox once the operator trusts its issuer there (trust-issuer --env sandbox, ADR 0053):
   * the sandbox routes for real wallets' test credentials are seeded off. The sandbox reference route is owned
   * by configuration and left alone. Returns whether the route is (now) available in the sandbox.
   */
  async openInSandbox(routeId: string): Promise<boolean> {
    if (routeId === SANDBOX_ROUTE_ID) return true;
    const { ds, clock } = this.deps;
    await transactionWithRetry(ds, async (m) => {
      await bumpCatalogVersion(m);
      const res = await m
        .getRepository(CredentialRouteEntity)
        .update({ id: routeId }, { sandboxAvailable: true, updatedAt: clock.now() });
      if (!res.affected) throw new AppError('not_found', 'No route with this id.');
    });
    return true;
  }

  /**
   * Records the production acceptances of a route (an operator action, not a business API) and derives
   * production availability from them. A route of a sandbox-only issuer cannot be accepted.
   */
  async setAcceptance(routeId: string, acceptance: Partial<RouteAcceptance>): Promise<RouteView> {
    const { ds, clock } = this.deps;
    await transactionWithRetry(ds, async (m) => {
      await bumpCatalogVersion(m);
      const repo = m.getRepository(CredentialRouteEntity);
      const route = await repo.findOneBy({ id: routeId });
      if (!route) throw new AppError('not_found', 'No route with this id.');
      const issuer = await m.getRepository(CredentialIssuerEntity).findOneByOrFail({ id: route.issuerId });
      const next = {
        providerAccepted: acceptance.provider ?? route.providerAccepted,
        issuerAccepted: acceptance.issuer ?? route.issuerAccepted,
        serviceAccepted: acceptance.service ?? route.serviceAccepted,
      };
      if (issuer.sandboxOnly && (next.providerAccepted || next.issuerAccepted || next.serviceAccepted))
        throw new AppError(
          'validation_failed',
          'A route of a sandbox-only issuer can never be accepted for production.',
          { param: 'route_id' },
        );
      await repo.update(
        { id: routeId },
        {
          ...next,
          productionAvailable: next.providerAccepted && next.issuerAccepted && next.serviceAccepted,
          updatedAt: clock.now(),
        },
      );
    });
    const view = (await this.routes()).find((r) => r.id === routeId);
    if (!view) throw new AppError('not_found', 'No route with this id.');
    return view;
  }

  /**
   * Idempotent, safe on several nodes at once: inserts the seed rows on fixed ids (insert-or-ignore), so an
   * operator's later changes (acceptances, notes) are never overwritten. Only the sandbox route is owned by
   * configuration: its issuer identifier follows BASE_URL and its sandbox availability follows SEED_SANDBOX.
   * One transaction that bumps the catalog version, so a node started with another SEED_SANDBOX is obeyed by
   * the creates of every node at once.
   */
  async ensureSeeded(opts: { sandboxIssuerIdentifier: string; sandboxEnabled: boolean }): Promise<void> {
    const { ds, clock } = this.deps;
    const now = clock.now();
    const stamp = { createdAt: now, updatedAt: now };
    await transactionWithRetry(ds, async (m) => {
      await bumpCatalogVersion(m); // first: nodes starting together queue on the version row's lock
      await this.seed(m, opts, stamp);
    });
  }

  private async seed(
    m: EntityManager,
    opts: { sandboxIssuerIdentifier: string; sandboxEnabled: boolean },
    stamp: { createdAt: Date; updatedAt: Date },
  ): Promise<void> {
    const insert = async (
      entity: typeof WalletEntity | typeof CredentialIssuerEntity | typeof CredentialRouteEntity,
      values: object[],
    ) => m.createQueryBuilder().insert().into(entity).values(values).orIgnore().execute();
    await insert(
      WalletEntity,
      SEED_WALLETS.map((w) => ({ ...w, platforms: JSON.stringify(w.platforms), ...stamp })),
    );
    await insert(
      CredentialIssuerEntity,
      SEED_ISSUERS.map((i) => ({
        ...i,
        identifier: i.id === SANDBOX_ISSUER_ID ? opts.sandboxIssuerIdentifier : i.identifier,
        ...stamp,
      })),
    );
    await insert(
      CredentialRouteEntity,
      SEED_ROUTES.map((r) => ({
        ...r,
        formats: JSON.stringify(r.formats),
        sandboxAvailable: r.id === SANDBOX_ROUTE_ID ? opts.sandboxEnabled : r.sandboxAvailable,
        // honest seed: nothing is accepted for production until the three parties have accepted it
        productionAvailable: false,
        providerAccepted: false,
        issuerAccepted: false,
        serviceAccepted: false,
        ...stamp,
      })),
    );
    // stamp: bumped by ensureSeeded, whose transaction this runs in (the catalog version, ADR 0025/0063)
    // a seeded note of an earlier release that contradicted its route is replaced (an operator's never is)
    for (const [id, stale] of Object.entries(STALE_SEED_NOTES)) {
      const notes = SEED_ROUTES.find((r) => r.id === id)?.notes;
      if (notes !== undefined)
        await m.getRepository(CredentialRouteEntity).update({ id, notes: In(stale) }, { notes });
    }
    await m
      .getRepository(CredentialIssuerEntity)
      .update({ id: SANDBOX_ISSUER_ID }, { identifier: opts.sandboxIssuerIdentifier, sandboxOnly: true });
    const { id: _id, walletId: _w, issuerId: _i, sandboxAvailable: _s, ...owned } = SANDBOX_ROUTE;
    await m.getRepository(CredentialRouteEntity).update(
      { id: SANDBOX_ROUTE_ID },
      {
        ...owned,
        formats: JSON.stringify(owned.formats),
        sandboxAvailable: opts.sandboxEnabled,
        productionAvailable: false,
        providerAccepted: false,
        issuerAccepted: false,
        serviceAccepted: false,
      },
    );
  }
}
