// Owns the sandbox PID issuer: its ES256 key, its registration as a trusted issuer for the SANDBOX environment
// only, its status list, and the SD-JWT VC credentials of the reference-wallet personas (@sd-jwt/sd-jwt-vc).
// ensureSeeded() is idempotent and safe on every start, also on several nodes at once (insert-or-ignore on
// fixed ids, then re-read), and re-issues credentials when BASE_URL changed or a credential is about to expire.
import { randomBytes } from 'node:crypto';
import { digest, ES256 } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { decodeJwt } from 'jose';
import { type DataSource, type EntityManager, IsNull, Not } from 'typeorm';
import type { Clock } from '../../common/clock';
import { newId, sha256Hex } from '../../common/ids';
import type { Config } from '../../config/config';
import { transactionWithRetry } from '../../db/data-source';
import { SANDBOX_ROUTE_ID } from '../catalog/catalog.seed';
import { bumpTrustVersion } from '../verification/trust-version';
import { TrustedIssuerEntity } from '../verification/trusted-issuer.entity';
import { ageOverClaims, DISCLOSABLE_PID_CLAIMS, PERSONAS, type Persona, SANDBOX_PID_VCT } from './personas';
import { SandboxCredentialEntity } from './sandbox-credential.entity';
import { SandboxKeyEntity } from './sandbox-key.entity';
import { StatusListService } from './status-list.service';

export const SANDBOX_ISSUER_OWNER = 'sandbox-issuer';
export const UNTRUSTED_ISSUER_OWNER = 'sandbox-untrusted-issuer';
/** The one sandbox status list (2 bits per entry: valid, revoked, suspended). */
export const SANDBOX_STATUS_LIST_ID = 'stl_sandbox_pid_1';
const STATUS_BITS = 2;
const STATUS_SIZE = 1024;
const DAY_S = 86_400;
const VALIDITY_S = 365 * DAY_S;
/** Re-issue a persona credential this long before it would expire (so the sandbox never rots). */
const RENEW_BEFORE_S = 30 * DAY_S;

export interface SandboxKey {
  privateJwk: JsonWebKey;
  publicJwk: JsonWebKey;
}

/** 128-bit salts (the library's default salt generator yields 64 bits for length 16). */
const saltGenerator = (bytes: number): string => randomBytes(bytes).toString('base64url');

export const credentialIdOf = (persona: string): string => `scr_${persona}`;

export class SandboxIssuer {
  readonly lists: StatusListService;

  constructor(private readonly deps: { ds: DataSource; config: Pick<Config, 'baseUrl'>; clock: Clock }) {
    this.lists = new StatusListService(deps.ds, deps.clock);
  }

  /** `iss` of the sandbox issuer's credentials. */
  get issuerId(): string {
    return `${this.deps.config.baseUrl}/sandbox/issuer`;
  }

  get untrustedIssuerId(): string {
    return `${this.deps.config.baseUrl}/sandbox/untrusted-issuer`;
  }

  statusListUri(listId: string): string {
    return `${this.deps.config.baseUrl}/sandbox/status-lists/${listId}`;
  }

  async ensureSeeded(): Promise<void> {
    const issuerKey = await this.ensureKey('issuer', SANDBOX_ISSUER_OWNER);
    await this.ensureKey('issuer', UNTRUSTED_ISSUER_OWNER);
    await this.registerTrust(issuerKey);
    await this.lists.ensure(SANDBOX_STATUS_LIST_ID, this.issuerId, STATUS_BITS, STATUS_SIZE);
    for (const persona of PERSONAS) await this.ensurePersona(persona);
  }

  /** The signed status list token served at the list's URI. */
  async statusListJwt(listId: string): Promise<string> {
    const key = await this.loadKey('issuer', SANDBOX_ISSUER_OWNER);
    return this.lists.signedToken(listId, this.statusListUri(listId), key.privateJwk);
  }

  /**
   * Issues (without storing) a credential for a persona from the same data and keys as its stored one.
   * `typ` overrides the JWT header type: tests use it to craft a credential of the wrong type.
   */
  async issueFor(personaId: string, opts: { typ?: string } = {}): Promise<string> {
    const persona = PERSONAS.find((p) => p.id === personaId);
    if (!persona) throw new Error(`unknown persona ${personaId}`);
    return this.issue(persona, opts);
  }

  private async ensurePersona(persona: Persona): Promise<void> {
    await this.ensureKey('holder', persona.id);
    const repo = this.deps.ds.getRepository(SandboxCredentialEntity);
    const id = credentialIdOf(persona.id);
    const existing = await repo.findOneBy({ id });
    if (!existing) {
      await this.lists.setStatus(SANDBOX_STATUS_LIST_ID, persona.statusIndex, persona.status);
      await this.deps.ds
        .createQueryBuilder()
        .insert()
        .into(SandboxCredentialEntity)
        .values({
          id,
          persona: persona.id,
          format: 'dc+sd-jwt',
          vct: SANDBOX_PID_VCT,
          credential: await this.issue(persona),
          statusIndex: persona.statusIndex,
          createdAt: this.deps.clock.now(),
        })
        .orIgnore()
        .execute();
      return;
    }
    if (this.needsReissue(persona, existing.credential)) {
      await repo.update({ id }, { credential: await this.issue(persona), createdAt: this.deps.clock.now() });
    }
  }

  /** BASE_URL changed (iss or status uri prefix differs), or the credential is close to its expiry. */
  private needsReissue(persona: Persona, credential: string): boolean {
    const payload = decodeJwt(credential.slice(0, credential.indexOf('~')));
    const uri = (payload.status as { status_list?: { uri?: string } } | undefined)?.status_list?.uri;
    const iss = persona.untrustedIssuer ? this.untrustedIssuerId : this.issuerId;
    if (payload.iss !== iss || uri !== this.statusListUri(SANDBOX_STATUS_LIST_ID)) return true;
    if (!hasDisclosure(credential, 'age_over_18')) return true; // issued before the age-over claims existed
    const now = Math.floor(this.deps.clock.now().getTime() / 1000);
    return !persona.expired && (payload.exp ?? 0) < now + RENEW_BEFORE_S;
  }

  private async issue(persona: Persona, opts: { typ?: string } = {}): Promise<string> {
    const now = this.deps.clock.now();
    const nowS = Math.floor(now.getTime() / 1000);
    const signerKey = await this.loadKey(
      'issuer',
      persona.untrustedIssuer ? UNTRUSTED_ISSUER_OWNER : SANDBOX_ISSUER_OWNER,
    );
    const holder = await this.loadKey('holder', persona.id);
    // The expired persona's credential was issued 13 months ago and expired a month ago.
    const iat = persona.expired ? nowS - VALIDITY_S - 30 * DAY_S : nowS;
    const sdjwt = new SDJwtVcInstance({
      signer: await ES256.getSigner(signerKey.privateJwk),
      signAlg: 'ES256',
      hasher: digest,
      hashAlg: 'sha-256',
      saltGenerator,
    });
    return sdjwt.issue(
      {
        iss: persona.untrustedIssuer ? this.untrustedIssuerId : this.issuerId,
        iat,
        exp: iat + VALIDITY_S,
        vct: SANDBOX_PID_VCT,
        cnf: { jwk: holder.publicJwk },
        status: {
          status_list: { idx: persona.statusIndex, uri: this.statusListUri(SANDBOX_STATUS_LIST_ID) },
        },
        ...persona.claims(now),
        ...ageOverClaims(persona.claims(now).birth_date, now),
      },
      { _sd: [...DISCLOSABLE_PID_CLAIMS] },
      opts.typ ? { header: { typ: opts.typ } } : undefined,
    );
  }

  /** Trusts the issuer key for `iss` = this base URL in the sandbox; retires its registrations for old bases. */
  private async registerTrust(key: SandboxKey): Promise<void> {
    // one transaction with the trust version (ADR 0063): nodes started with another base URL see it at once
    await transactionWithRetry(this.deps.ds, async (m) => {
      await bumpTrustVersion(m);
      await this.registerTrustIn(m, key);
    });
  }

  private async registerTrustIn(m: EntityManager, key: SandboxKey): Promise<void> {
    // stamp: bumped by registerTrust, whose transaction this runs in
    const repo = m.getRepository(TrustedIssuerEntity);
    const publicJwk = JSON.stringify(key.publicJwk);
    const now = this.deps.clock.now();
    await repo.update(
      { environment: 'sandbox', publicJwk, issuer: Not(this.issuerId), retiredAt: IsNull() },
      { retiredAt: now },
    );
    const id = `tis_${sha256Hex(`sandbox|${this.issuerId}`).slice(0, 26)}`;
    await m
      .createQueryBuilder()
      .insert()
      .into(TrustedIssuerEntity)
      .values({
        id,
        issuer: this.issuerId,
        environment: 'sandbox',
        routeId: SANDBOX_ROUTE_ID,
        name: 'Sandbox PID issuer',
        publicJwk,
        createdAt: now,
        retiredAt: null,
      })
      .orIgnore()
      .execute();
    // A base URL used before and retired since becomes current again.
    await repo.update({ id }, { retiredAt: null, publicJwk, routeId: SANDBOX_ROUTE_ID });
  }

  private async ensureKey(purpose: 'issuer' | 'holder', owner: string): Promise<SandboxKey> {
    const existing = await this.deps.ds.getRepository(SandboxKeyEntity).findOneBy({ purpose, owner });
    if (!existing) {
      const pair = await ES256.generateKeyPair();
      // Publish only the public members (WebCrypto's export adds key_ops/ext, which do not belong in cnf.jwk).
      const { kty, crv, x, y } = pair.publicKey;
      await this.deps.ds
        .createQueryBuilder()
        .insert()
        .into(SandboxKeyEntity)
        .values({
          id: newId('skey'),
          purpose,
          owner,
          privateJwk: JSON.stringify(pair.privateKey),
          publicJwk: JSON.stringify({ kty, crv, x, y }),
          createdAt: this.deps.clock.now(),
        })
        .orIgnore() // a concurrent start may have won: the stored key is the one used
        .execute();
    }
    return this.loadKey(purpose, owner);
  }

  private async loadKey(purpose: 'issuer' | 'holder', owner: string): Promise<SandboxKey> {
    return loadSandboxKey(this.deps.ds, purpose, owner);
  }
}

export async function loadSandboxKey(
  ds: DataSource,
  purpose: 'issuer' | 'holder',
  owner: string,
): Promise<SandboxKey> {
  const row = await ds.getRepository(SandboxKeyEntity).findOneByOrFail({ purpose, owner });
  return { privateJwk: JSON.parse(row.privateJwk), publicJwk: JSON.parse(row.publicJwk) };
}

/** Whether an issued SD-JWT (`jwt~d1~...~`) carries a disclosure for the claim `name`. */
function hasDisclosure(credential: string, name: string): boolean {
  return credential
    .split('~')
    .slice(1)
    .some((d) => {
      try {
        return (JSON.parse(Buffer.from(d, 'base64url').toString('utf8')) as unknown[])[1] === name;
      } catch {
        return false;
      }
    });
}
