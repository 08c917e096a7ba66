// Owns ETSI trust lists as a source of issuer trust (ADR 0036): configuring a list (source, kind, the anchors
// its signature must validate to, the credential routes and mdoc docTypes its entities are trusted for),
// refreshing it (on its NextUpdate by the worker, or on demand), and turning the entities of the version in
// force into trust anchors of those routes. A refresh that fails (unreachable, bad signature, expired, a
// pointed list that fails) changes nothing: the last good version stays; every attempt is a trust_list_version
// row (accepted with what it added and removed, or refused with why) and a log line.
import { createHash } from 'node:crypto';
import { BasicConstraintsExtension, X509Certificate } from '@peculiar/x509';
import { type DataSource, type EntityManager, In, IsNull, LessThanOrEqual } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import { newId } from '../../common/ids';
import type { Logger } from '../../common/logger';
import type { Environment } from '../../config/config';
import { transactionWithRetry } from '../../db/data-source';
import { CredentialIssuerEntity, CredentialRouteEntity } from '../credential-routes/catalog.entities';
import { type ListAnchor, replaceListAnchors } from '../verification/trust-list-anchors';
import { fingerprintOf, readSignedTrustList, TrustListRefusal } from './etsi-xml';
import { TrustListEntity, TrustListVersionEntity } from './trust-list.entity';
import { fetchListSource, isUrlSource } from './trust-list.fetch';

/** After a refused refresh, the worker tries again this much later (the last good version stays in force). */
export const RETRY_AFTER_MS = 60 * 60 * 1000;
/** The worker's claim on a due list, so two nodes do not refresh it at once. */
const CLAIM_MS = 5 * 60 * 1000;

export interface TrustListDeps {
  ds: DataSource;
  clock: Clock;
  logger: Logger;
  /** Sandbox lists may be served from private addresses (development), like webhook targets. */
  allowPrivateTargets: boolean;
}

export interface EntityCert {
  entity: string;
  fingerprint: string;
  pem: string;
}

export interface RefreshOutcome {
  list: string;
  attempt: number;
  status: 'accepted' | 'refused';
  error?: string;
  added: { entity: string; fingerprint: string }[];
  removed: { entity: string; fingerprint: string }[];
  next_update: string | null;
}

const keyOf = (e: { entity: string; fingerprint: string }) => `${e.entity}|${e.fingerprint}`;
const jsonList = (s: string): string[] => JSON.parse(s) as string[];

function parseAnchors(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0)
    throw new AppError('validation_failed', 'The list needs at least one anchor certificate (PEM).', {
      param: 'anchor',
    });
  try {
    return blocks.map((b) => new X509Certificate(b));
  } catch (e) {
    throw new AppError('validation_failed', 'An anchor is not a PEM certificate.', {
      param: 'anchor',
      cause: e,
    });
  }
}

export class TrustListService {
  constructor(private readonly deps: TrustListDeps) {}

  /** Configures a list and loads it once (the outcome says whether the first version was accepted). */
  async add(
    input: Parameters<TrustListService['configure']>[0],
  ): Promise<{ id: string; refresh: RefreshOutcome }> {
    const id = await this.configure(input);
    return { id, refresh: await this.refresh(id) };
  }

  /** Creates or updates a list by name (idempotent) without loading it (the worker or refresh() does). */
  async configure(input: {
    name: string;
    kind: 'lotl' | 'lote';
    source: string;
    environment: Environment;
    routes: string[];
    anchorsPem: string;
    doctypes?: string[];
  }): Promise<string> {
    const { ds, clock } = this.deps;
    if (input.kind !== 'lotl' && input.kind !== 'lote')
      throw new AppError('validation_failed', 'kind must be lotl or lote.', { param: 'kind' });
    if (!input.name || input.name.length > 200)
      throw new AppError('validation_failed', 'A list needs a name of at most 200 characters.', {
        param: 'name',
      });
    if (input.source.length > 1000 || (!isUrlSource(input.source) && !input.source.startsWith('/')))
      throw new AppError('validation_failed', 'The source must be an http(s) URL or an absolute file path.', {
        param: 'source',
      });
    if (input.routes.length === 0)
      throw new AppError('validation_failed', 'Name the route(s) the list is trusted for.', {
        param: 'route',
      });
    const known = await ds.getRepository(CredentialRouteEntity).findBy({ id: In(input.routes) });
    if (known.length !== new Set(input.routes).size)
      throw new AppError('validation_failed', 'A route is not in the catalog.', { param: 'route' });
    const anchors = parseAnchors(input.anchorsPem);
    const existing = await ds
      .getRepository(TrustListEntity)
      .findOneBy({ name: input.name, retiredAt: IsNull() });
    const id = existing?.id ?? newId('tsl');
    const row = {
      name: input.name,
      kind: input.kind,
      source: input.source,
      environment: input.environment,
      routes: JSON.stringify([...new Set(input.routes)]),
      doctypes: JSON.stringify(input.doctypes ?? []),
      anchorsPem: anchors.map((a) => a.toString('pem')).join('\n'),
    };
    if (existing) await ds.getRepository(TrustListEntity).update({ id }, row);
    else
      await ds.getRepository(TrustListEntity).insert({
        id,
        ...row,
        currentVersion: null,
        nextUpdate: null,
        lastAttemptAt: null,
        lastError: null,
        createdAt: clock.now(),
        retiredAt: null,
      });
    return id;
  }

  async lists(): Promise<TrustListEntity[]> {
    return this.deps.ds
      .getRepository(TrustListEntity)
      .find({ where: { retiredAt: IsNull() }, order: { name: 'ASC' } });
  }

  async versions(listId: string, limit = 20): Promise<TrustListVersionEntity[]> {
    return this.deps.ds
      .getRepository(TrustListVersionEntity)
      .find({ where: { listId }, order: { attempt: 'DESC' }, take: limit });
  }

  async byNameOrId(ref: string): Promise<TrustListEntity> {
    const repo = this.deps.ds.getRepository(TrustListEntity);
    const list =
      (await repo.findOneBy({ id: ref, retiredAt: IsNull() })) ??
      (await repo.findOneBy({ name: ref, retiredAt: IsNull() }));
    if (!list) throw new AppError('not_found', 'No trust list with this id or name.');
    return list;
  }

  /** Refreshes every list whose NextUpdate (or retry time) has come; the worker's pass. */
  async refreshDue(): Promise<number> {
    const now = this.deps.clock.now();
    const repo = this.deps.ds.getRepository(TrustListEntity);
    const due = [
      ...(await repo.findBy({ retiredAt: IsNull(), nextUpdate: LessThanOrEqual(now) })),
      ...(await repo.findBy({ retiredAt: IsNull(), nextUpdate: IsNull() })),
    ];
    let done = 0;
    for (const list of due) {
      // a guarded claim: another node that got here first has moved next_update on
      const claimed = await repo
        .createQueryBuilder()
        .update(TrustListEntity)
        .set({ nextUpdate: new Date(now.getTime() + CLAIM_MS) })
        .where('id = :id AND (next_update IS NULL OR next_update <= :now)', { id: list.id, now })
        .execute();
      if (claimed.affected !== 1) continue;
      await this.refresh(list.id);
      done++;
    }
    return done;
  }

  /** Fetches and verifies the list (and, for a LoTL, every list it points at); records the attempt. */
  async refresh(listId: string): Promise<RefreshOutcome> {
    const { clock, logger } = this.deps;
    const list = await this.byNameOrId(listId);
    const now = clock.now();
    let entities: EntityCert[];
    let meta: { sequence: string | null; issuedAt: Date | null; nextUpdate: Date; digest: string };
    try {
      ({ entities, meta } = await this.load(list, now));
    } catch (e) {
      const error = e instanceof TrustListRefusal ? e.message : `The list cannot be processed: ${String(e)}`;
      const attempt = await this.record(list, now, { status: 'refused', error });
      logger.warn('trust list refused; the last good version stays', { list: list.name, attempt, error });
      return {
        list: list.name,
        attempt,
        status: 'refused',
        error,
        added: [],
        removed: [],
        next_update: null,
      };
    }
    const previous = await this.currentEntities(list);
    const nowKeys = new Set(entities.map(keyOf));
    const before = new Set(previous.map(keyOf));
    const added = entities
      .filter((e) => !before.has(keyOf(e)))
      .map(({ entity, fingerprint }) => ({ entity, fingerprint }));
    const removed = previous
      .filter((e) => !nowKeys.has(keyOf(e)))
      .map(({ entity, fingerprint }) => ({ entity, fingerprint }));
    const attempt = await this.record(list, now, { status: 'accepted', entities, meta, added, removed });
    logger.info('trust list refreshed', {
      list: list.name,
      attempt,
      sequence: meta.sequence,
      added: added.length,
      removed: removed.length,
      next_update: meta.nextUpdate.toISOString(),
    });
    return {
      list: list.name,
      attempt,
      status: 'accepted',
      added,
      removed,
      next_update: meta.nextUpdate.toISOString(),
    };
  }

  /** The entity certificates of the version in force. */
  async currentEntities(list: TrustListEntity): Promise<EntityCert[]> {
    if (list.currentVersion === null) return [];
    const v = await this.deps.ds
      .getRepository(TrustListVersionEntity)
      .findOneBy({ listId: list.id, attempt: list.currentVersion });
    return v?.entities ? (JSON.parse(v.entities) as EntityCert[]) : [];
  }

  private async load(list: TrustListEntity, now: Date) {
    const opts = { environment: list.environment, allowPrivate: this.deps.allowPrivateTargets };
    const xml = await fetchListSource(list.source, opts);
    const digest = createHash('sha256').update(xml).digest('hex');
    const top = await readSignedTrustList(xml, parseAnchors(list.anchorsPem), now);
    let nextUpdate = top.nextUpdate;
    const found = [...top.entities];
    if (list.kind === 'lotl') {
      if (top.pointers.length === 0)
        throw new TrustListRefusal('The List of Trusted Lists points at no list.');
      for (const p of top.pointers) {
        if (!isUrlSource(p.location))
          throw new TrustListRefusal(`A pointed list location is not a URL: ${p.location}`);
        if (p.certificates.length === 0)
          throw new TrustListRefusal(`The pointer to ${p.location} names no signer.`);
        const pointed = await readSignedTrustList(
          await fetchListSource(p.location, opts),
          p.certificates.map((c) => new X509Certificate(c)),
          now,
        ).catch((e: unknown) => {
          throw new TrustListRefusal(`${p.location}: ${(e as Error).message}`);
        });
        found.push(...pointed.entities);
        if (pointed.nextUpdate < nextUpdate) nextUpdate = pointed.nextUpdate;
      }
    }
    const entities: EntityCert[] = [];
    const seen = new Set<string>();
    for (const e of found)
      for (const pem of e.certificates) {
        const fingerprint = fingerprintOf(new X509Certificate(pem));
        const item = { entity: e.name, fingerprint, pem };
        if (!seen.has(keyOf(item))) entities.push(item);
        seen.add(keyOf(item));
      }
    return { entities, meta: { sequence: top.sequenceNumber, issuedAt: top.issuedAt, nextUpdate, digest } };
  }

  /** One transaction: the version row, the list's state and (accepted) the anchors of its routes. */
  private async record(
    list: TrustListEntity,
    now: Date,
    r:
      | { status: 'refused'; error: string }
      | {
          status: 'accepted';
          entities: EntityCert[];
          meta: { sequence: string | null; issuedAt: Date | null; nextUpdate: Date; digest: string };
          added: unknown[];
          removed: unknown[];
        },
  ): Promise<number> {
    return transactionWithRetry(this.deps.ds, async (m) => {
      const last = await m
        .getRepository(TrustListVersionEntity)
        .findOne({ where: { listId: list.id }, order: { attempt: 'DESC' } });
      const attempt = (last?.attempt ?? 0) + 1;
      const accepted = r.status === 'accepted';
      await m.getRepository(TrustListVersionEntity).insert({
        id: newId('tlv'),
        listId: list.id,
        attempt,
        status: r.status,
        sequenceNumber: accepted ? r.meta.sequence : null,
        issuedAt: accepted ? r.meta.issuedAt : null,
        nextUpdate: accepted ? r.meta.nextUpdate : null,
        digest: accepted ? r.meta.digest : null,
        entities: accepted ? JSON.stringify(r.entities) : null,
        added: JSON.stringify(accepted ? r.added : []),
        removed: JSON.stringify(accepted ? r.removed : []),
        error: accepted ? null : r.error.slice(0, 2000),
        fetchedAt: now,
      });
      await m.getRepository(TrustListEntity).update(
        { id: list.id },
        accepted
          ? { currentVersion: attempt, nextUpdate: r.meta.nextUpdate, lastAttemptAt: now, lastError: null }
          : {
              nextUpdate: new Date(now.getTime() + RETRY_AFTER_MS),
              lastAttemptAt: now,
              lastError: r.error.slice(0, 2000),
            },
      );
      if (accepted) await this.materialize(m, list, r.entities, now);
      return attempt;
    });
  }

  /** Makes the routes' anchors (SD-JWT VC trust_anchor, mdoc IACAs per docType) equal to the entities' CA certs. */
  private async materialize(m: EntityManager, list: TrustListEntity, entities: EntityCert[], now: Date) {
    const cas = entities.filter(
      (e) => new X509Certificate(e.pem).getExtension(BasicConstraintsExtension)?.ca,
    );
    const routes = await m.getRepository(CredentialRouteEntity).findBy({ id: In(jsonList(list.routes)) });
    const issuers = new Map(
      (await m.getRepository(CredentialIssuerEntity).findBy({ id: In(routes.map((r) => r.issuerId)) })).map(
        (i) => [i.id, i.identifier],
      ),
    );
    const want: ListAnchor[] = [];
    for (const route of routes)
      for (const e of cas) want.push({ ...e, routeId: route.id, issuer: issuers.get(route.issuerId) ?? '' });
    await replaceListAnchors(m, list, want, jsonList(list.doctypes), now);
  }
}
