// Owns the sandbox mdoc issuer: an IACA root and a document signer (DS) certificate (P-256, @peculiar/x509),
// stored like the other sandbox keys (sandbox_key rows; the certificate rides in the public JWK's `x5c`), the
// IACA's registration as an mdoc trust anchor for the SANDBOX environment only, and the personas' mdoc
// credentials (@owf/mdoc Issuer: EU PID, mobile driving licence, EU age verification), device-bound to each
// persona's holder key and stored in sandbox_credential (format mso_mdoc, vct = docType, credential = base64url
// IssuerSigned). The MSO authorizes the device key to sign our transaction data namespaces (KeyAuthorizations:
// sign and attestation with mdoc). A second, untrusted IACA signs the unknown_issuer persona's documents.
// With a base URL, every MSO names its status (mdoc-status-lists.ts: the EU documents a Token Status List
// entry, the mDL an ISO identifier list entry), signed by a status signer certificate of the same IACA.
// ensureMdocSeeded() is idempotent and safe on concurrent starts (insert-or-ignore on fixed ids, then re-read).
import { generateKeyPairSync, webcrypto } from 'node:crypto';
import {
  CoseKey,
  DeviceKey,
  IssuerSigned,
  KeyAuthorizations,
  type KeyAuthorizationsOptions,
  Issuer as MdocIssuer,
  SignatureAlgorithm,
} from '@owf/mdoc';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectKeyIdentifierExtension,
  X509Certificate,
  X509CertificateGenerator,
} from '@peculiar/x509';
import type { DataSource } from 'typeorm';
import type { Clock } from '../../../common/clock';
import { AppError } from '../../../common/errors';
import { newId } from '../../../common/ids';
import { SANDBOX_ROUTE_ID } from '../../catalog/catalog.seed';
import { mdocContext, x509Of } from '../../verification/mdoc/mdoc-context';
import {
  MDOC_AV,
  MDOC_DOCTYPES,
  MDOC_MDL,
  MDOC_PID,
  type MdocDocType,
} from '../../verification/mdoc/mdoc-query';
import { MdocTrustStore } from '../../verification/mdoc/mdoc-trust';
import { TX_TYPES } from '../../verification/transaction-data';
import { PERSONAS, type Persona } from '../personas';
import { StatusListService } from '../status-list.service';
import { mdocElementsOf, SANDBOX_MDOC_COUNTRY } from './mdoc-elements';
import {
  ensureMdocStatusLists,
  identifierListCwt,
  mdocIdentifierListUri,
  mdocStatusListUri,
  msoStatusOf,
  msoStatusUriOf,
  SANDBOX_MDOC_IDENTIFIER_LIST_ID,
  statusListCwt,
  usesIdentifierList,
  withMsoStatus,
} from './mdoc-status-lists';

export { ageAt, SANDBOX_MDOC_COUNTRY } from './mdoc-elements';

import { SandboxCredentialEntity } from '../sandbox-credential.entity';
import { loadSandboxKey } from '../sandbox-issuer';
import { SandboxKeyEntity } from '../sandbox-key.entity';

const DAY_MS = 86_400_000;
const VALIDITY_MS = 365 * DAY_MS;
/** Re-issue a persona document this long before it would expire (so the sandbox never rots). */
const RENEW_BEFORE_MS = 30 * DAY_MS;
/** extKeyUsage of an mdoc document signer (ISO 18013-5 Annex B: id-mdl-kp-mdlDS). */
const MDL_DS_EKU = '1.0.18013.5.1.2';

interface Actor {
  iaca: string;
  ds: string;
  /** The signer of the actor's status lists (an end-entity certificate of the same IACA). */
  status: string;
  name: string;
}
const TRUSTED: Actor = {
  iaca: 'sandbox-mdoc-iaca',
  ds: 'sandbox-mdoc-ds',
  status: 'sandbox-mdoc-status',
  name: 'Sandbox mdoc',
};
const UNTRUSTED: Actor = {
  iaca: 'sandbox-mdoc-untrusted-iaca',
  ds: 'sandbox-mdoc-untrusted-ds',
  status: 'sandbox-mdoc-untrusted-status',
  name: 'Untrusted sandbox mdoc',
};

/**
 * Which documents each persona holds. The suspended persona holds no mDL: the mDL names the ISO identifier list,
 * which can only say "revoked".
 */
const DOCUMENTS_OF: Record<string, readonly MdocDocType[]> = {
  adult: [MDOC_PID, MDOC_MDL, MDOC_AV],
  minor: [MDOC_PID, MDOC_AV],
  revoked: [MDOC_PID, MDOC_MDL, MDOC_AV],
  suspended: [MDOC_PID, MDOC_AV],
  expired: [MDOC_PID, MDOC_MDL, MDOC_AV],
  unknown_issuer: [MDOC_PID, MDOC_MDL, MDOC_AV],
  unknown_holder_key: [MDOC_PID, MDOC_MDL, MDOC_AV],
};

/**
 * What the MSO authorizes the device key to sign (ISO 18013-5 KeyAuthorizations): the namespaces of our
 * transaction data types, where a wallet puts the hash of the documents or terms it signs.
 */
export const SANDBOX_KEY_AUTHORIZATIONS: KeyAuthorizationsOptions = { namespaces: [...TX_TYPES] };

const SHORT: Record<string, string> = {
  [MDOC_PID.doctype]: 'pid',
  [MDOC_MDL.doctype]: 'mdl',
  [MDOC_AV.doctype]: 'av',
};

export const mdocCredentialIdOf = (persona: string, doctype: string): string =>
  `scr_${persona}_mdoc_${SHORT[doctype] ?? doctype}`;

/** The documents a persona holds in the sandbox (docTypes). */
export const mdocDocTypesOf = (persona: string): readonly MdocDocType[] => DOCUMENTS_OF[persona] ?? [];

/**
 * Test levers of issueFor: other validity dates; another signer (untrusted DS, or the IACA key itself); other
 * KeyAuthorizations in the MSO (null: none, so the device key may sign nothing).
 */
export interface IssueOptions {
  validity?: { signed: Date; validFrom: Date; validUntil: Date };
  signer?: 'trusted' | 'untrusted' | 'iaca';
  keyAuthorizations?: KeyAuthorizationsOptions | null;
  /** The MSO's status: null for none; `uri` names another list location (default: the persona's entry). */
  status?: null | { uri?: string };
}

interface StoredCertKey {
  privateJwk: JsonWebKey;
  /** DER of the key's certificate. */
  certificate: Uint8Array;
}

export class SandboxMdocIssuer {
  private readonly trust: MdocTrustStore;
  private readonly lists: StatusListService;

  /** Without `baseUrl` the MSOs name no status (tools and tests that need no list). */
  constructor(private readonly deps: { ds: DataSource; clock: Clock; baseUrl?: string }) {
    this.trust = new MdocTrustStore(deps.ds);
    this.lists = new StatusListService(deps.ds, deps.clock);
  }

  /** The Token Status List (CWT) served at its URI; `signer: 'untrusted'` signs it under the untrusted IACA. */
  async statusListCwt(
    id: string,
    signer: 'trusted' | 'untrusted' = 'trusted',
    /** The `sub` (default: the list's URI here); tests serve lists elsewhere. */
    uri?: string,
  ): Promise<Uint8Array> {
    if (!this.deps.baseUrl) throw new Error('the sandbox mdoc issuer has no base URL');
    return statusListCwt({
      lists: this.lists,
      id,
      uri: uri ?? mdocStatusListUri(this.deps.baseUrl, id),
      signer: await this.loadCertKey((signer === 'trusted' ? TRUSTED : UNTRUSTED).status),
      now: this.deps.clock.now(),
    });
  }

  /** The ISO identifier list (CWT) served at its URI (not_found for another id). */
  async identifierListCwt(id: string, signer: 'trusted' | 'untrusted' = 'trusted'): Promise<Uint8Array> {
    if (!this.deps.baseUrl) throw new Error('the sandbox mdoc issuer has no base URL');
    if (id !== SANDBOX_MDOC_IDENTIFIER_LIST_ID) throw new AppError('not_found', 'No such identifier list.');
    return identifierListCwt({
      uri: mdocIdentifierListUri(this.deps.baseUrl, id),
      personas: PERSONAS,
      documentsOf: mdocDocTypesOf,
      signer: await this.loadCertKey((signer === 'trusted' ? TRUSTED : UNTRUSTED).status),
      now: this.deps.clock.now(),
    });
  }

  /** Keys, certificates, sandbox trust and every persona document; call after (or instead of) the SD-JWT seed. */
  async ensureSeeded(): Promise<void> {
    const iaca = await this.ensureActor(TRUSTED);
    await this.ensureActor(UNTRUSTED);
    if (this.deps.baseUrl) {
      await ensureMdocStatusLists(
        this.lists,
        `${this.deps.baseUrl}/sandbox/mdoc-issuer`,
        PERSONAS,
        mdocDocTypesOf,
      );
    }
    await this.trust.register({
      environment: 'sandbox',
      routeId: SANDBOX_ROUTE_ID,
      doctypes: [MDOC_PID.doctype, MDOC_MDL.doctype, MDOC_AV.doctype],
      name: 'Sandbox mdoc IACA',
      certificatePem: x509Of(iaca.certificate).toString('pem'),
      now: this.deps.clock.now(),
    });
    for (const persona of PERSONAS) {
      const documents = mdocDocTypesOf(persona.id);
      if (documents.length === 0) continue;
      await this.ensureHolderKey(persona.id);
      for (const type of documents) await this.ensurePersonaDocument(persona, type);
    }
  }

  /** The trusted sandbox IACA certificate (DER). */
  async iacaCertificate(): Promise<Uint8Array> {
    return (await this.loadCertKey(TRUSTED.iaca)).certificate;
  }

  /**
   * Issues (without storing) a document for a persona from the same data and keys as its stored one. Tests use
   * the options to craft documents the wallet then presents (see IssueOptions).
   */
  async issueFor(personaId: string, doctype: string, opts: IssueOptions = {}): Promise<string> {
    const persona = PERSONAS.find((p) => p.id === personaId);
    // also the Photo ID and the ID pass, which no persona holds (their trust is off until an operator turns it on)
    const type = MDOC_DOCTYPES.find((t) => t.doctype === doctype);
    if (!persona || !type) throw new Error(`unknown persona ${personaId} or doctype ${doctype}`);
    return this.issue(persona, type, opts);
  }

  private async ensurePersonaDocument(persona: Persona, type: MdocDocType): Promise<void> {
    const repo = this.deps.ds.getRepository(SandboxCredentialEntity);
    const id = mdocCredentialIdOf(persona.id, type.doctype);
    const existing = await repo.findOneBy({ id });
    if (!existing) {
      await this.deps.ds
        .createQueryBuilder()
        .insert()
        .into(SandboxCredentialEntity)
        .values({
          id,
          persona: persona.id,
          format: 'mso_mdoc',
          vct: type.doctype,
          credential: await this.issue(persona, type),
          statusIndex: null,
          createdAt: this.deps.clock.now(),
        })
        .orIgnore()
        .execute();
      return;
    }
    if (this.needsReissue(persona, type, existing.credential)) {
      await repo.update(
        { id },
        { credential: await this.issue(persona, type), createdAt: this.deps.clock.now() },
      );
    }
  }

  /**
   * Issued before the MSO authorized our transaction data namespaces, or (not for the expired persona, whose
   * document stays expired) close to its validUntil.
   */
  private needsReissue(persona: Persona, type: MdocDocType, credential: string): boolean {
    const mso = IssuerSigned.fromEncodedForOid4Vci(credential).issuerAuth.mobileSecurityObject;
    // Issued before MSOs named their status, or under another BASE_URL.
    if (this.deps.baseUrl && msoStatusUriOf(credential) !== this.statusUriOf(type.doctype)) return true;
    const authorized = mso.deviceKeyInfo.keyAuthorizations?.namespaces ?? [];
    if (!TX_TYPES.every((t) => authorized.includes(t))) return true;
    if (persona.expired) return false;
    return mso.validityInfo.validUntil.getTime() < this.deps.clock.now().getTime() + RENEW_BEFORE_MS;
  }

  private async issue(persona: Persona, type: MdocDocType, opts: IssueOptions = {}): Promise<string> {
    const now = this.deps.clock.now();
    // Whole seconds: CBOR tdate carries no fractions, and the MSO must say exactly what was signed.
    const nowS = new Date(Math.floor(now.getTime() / 1000) * 1000);
    const signed = persona.expired ? new Date(nowS.getTime() - VALIDITY_MS - 30 * DAY_MS) : nowS;
    const validity = opts.validity ?? {
      signed,
      validFrom: signed,
      validUntil: new Date(signed.getTime() + VALIDITY_MS),
    };
    const untrusted =
      opts.signer === 'untrusted' || (opts.signer === undefined && persona.untrustedIssuer === true);
    // 'iaca': the root signs the MSO itself (a misissuance the verifier must refuse).
    const ds = await this.loadCertKey(
      opts.signer === 'iaca' ? TRUSTED.iaca : untrusted ? UNTRUSTED.ds : TRUSTED.ds,
    );
    const holder = await loadSandboxKey(this.deps.ds, 'holder', persona.id);
    const { kty, crv, x, y } = holder.publicJwk;

    const issuer = new MdocIssuer(type.doctype, mdocContext);
    issuer.addIssuerNamespace(type.namespace, mdocElementsOf(persona, type, now, validity));
    const signingKey = CoseKey.fromJwk({ ...ds.privateJwk, alg: 'ES256' });
    const issuerSigned = await issuer.sign({
      signingKey,
      algorithm: SignatureAlgorithm.ES256,
      digestAlgorithm: 'SHA-256',
      validityInfo: validity,
      deviceKeyInfo: {
        deviceKey: DeviceKey.fromJwk({ kty, crv, x, y }),
        ...(opts.keyAuthorizations === null
          ? {}
          : {
              keyAuthorizations: KeyAuthorizations.create(
                opts.keyAuthorizations ?? SANDBOX_KEY_AUTHORIZATIONS,
              ),
            }),
      },
      certificates: [ds.certificate],
    });
    if (!this.deps.baseUrl || opts.status === null) return issuerSigned.encodedForOid4Vci;
    const status = msoStatusOf(persona, type.doctype, this.deps.baseUrl, opts.status?.uri);
    return (await withMsoStatus(issuerSigned, status, signingKey)).encodedForOid4Vci;
  }

  private statusUriOf(doctype: string): string | undefined {
    if (!this.deps.baseUrl) return undefined;
    return usesIdentifierList(doctype)
      ? mdocIdentifierListUri(this.deps.baseUrl)
      : mdocStatusListUri(this.deps.baseUrl);
  }

  /** IACA (self-signed root) and DS (signed by the IACA) of one actor, created once. */
  private async ensureActor(actor: Actor): Promise<StoredCertKey> {
    const now = this.deps.clock.now();
    const org = 'O=Credential Verification Sandbox';
    const iacaName = `C=${SANDBOX_MDOC_COUNTRY}, ${org}, CN=${actor.name} IACA`;
    const iaca = await this.ensureCertKey(actor.iaca, async (keys) =>
      X509CertificateGenerator.createSelfSigned({
        name: iacaName,
        keys,
        notBefore: new Date(now.getTime() - 2 * VALIDITY_MS),
        notAfter: new Date(now.getTime() + 10 * VALIDITY_MS),
        signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
        extensions: [
          new BasicConstraintsExtension(true, 0, true),
          new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
          await SubjectKeyIdentifierExtension.create(keys.publicKey),
        ],
      }),
    );
    await this.ensureSignerCert(actor, iaca, 'ds', `CN=${actor.name} document signer`);
    await this.ensureSignerCert(actor, iaca, 'status', `CN=${actor.name} status list signer`);
    return iaca;
  }

  /** An end-entity certificate of the actor's IACA: the document signer, or the status list signer. */
  private async ensureSignerCert(
    actor: Actor,
    iaca: StoredCertKey,
    role: 'ds' | 'status',
    cn: string,
  ): Promise<void> {
    const now = this.deps.clock.now();
    const org = 'O=Credential Verification Sandbox';
    await this.ensureCertKey(actor[role], async (keys) => {
      const iacaKey = await importEcPrivateKey(iaca.privateJwk);
      const iacaCert = x509Of(iaca.certificate);
      return X509CertificateGenerator.create({
        subject: `C=${SANDBOX_MDOC_COUNTRY}, ${org}, ${cn}`,
        issuer: iacaCert.subject,
        publicKey: keys.publicKey,
        signingKey: iacaKey,
        // Before the expired persona's MSO was signed (13 months ago): the MSO must be signed within DS validity.
        notBefore: new Date(now.getTime() - 2 * VALIDITY_MS),
        notAfter: new Date(now.getTime() + 5 * VALIDITY_MS),
        signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
        extensions: [
          new KeyUsagesExtension(KeyUsageFlags.digitalSignature, true),
          ...(role === 'ds' ? [new ExtendedKeyUsageExtension([MDL_DS_EKU], true)] : []),
          await AuthorityKeyIdentifierExtension.create(iacaCert, false),
          await SubjectKeyIdentifierExtension.create(keys.publicKey),
        ],
      });
    });
  }

  /** A P-256 key whose certificate is made by `makeCert`, stored once (a concurrent start may win: re-read). */
  private async ensureCertKey(
    owner: string,
    makeCert: (keys: CryptoKeyPair) => Promise<X509Certificate>,
  ): Promise<StoredCertKey> {
    const existing = await this.deps.ds
      .getRepository(SandboxKeyEntity)
      .findOneBy({ purpose: 'issuer', owner });
    if (!existing) {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const privateJwk = privateKey.export({ format: 'jwk' });
      const keys: CryptoKeyPair = {
        privateKey: await importEcPrivateKey(privateJwk),
        publicKey: await webcrypto.subtle.importKey(
          'jwk',
          { kty: privateJwk.kty, crv: privateJwk.crv, x: privateJwk.x, y: privateJwk.y },
          { name: 'ECDSA', namedCurve: 'P-256' },
          true,
          ['verify'],
        ),
      };
      const cert = await makeCert(keys);
      const { kty, crv, x, y } = privateJwk;
      await this.deps.ds
        .createQueryBuilder()
        .insert()
        .into(SandboxKeyEntity)
        .values({
          id: newId('skey'),
          purpose: 'issuer',
          owner,
          privateJwk: JSON.stringify(privateJwk),
          publicJwk: JSON.stringify({ kty, crv, x, y, x5c: [Buffer.from(cert.rawData).toString('base64')] }),
          createdAt: this.deps.clock.now(),
        })
        .orIgnore()
        .execute();
    }
    return this.loadCertKey(owner);
  }

  private async loadCertKey(owner: string): Promise<StoredCertKey> {
    const key = await loadSandboxKey(this.deps.ds, 'issuer', owner);
    const x5c = (key.publicJwk as { x5c?: string[] }).x5c;
    if (!x5c?.[0]) throw new Error(`sandbox key ${owner} has no certificate`);
    return { privateJwk: key.privateJwk, certificate: new Uint8Array(Buffer.from(x5c[0], 'base64')) };
  }

  /** The persona's holder key (shared with its SD-JWT VC), created here if the SD-JWT seed has not run yet. */
  private async ensureHolderKey(persona: string): Promise<void> {
    const existing = await this.deps.ds
      .getRepository(SandboxKeyEntity)
      .findOneBy({ purpose: 'holder', owner: persona });
    if (existing) return;
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const privateJwk = privateKey.export({ format: 'jwk' });
    const { kty, crv, x, y } = privateJwk;
    await this.deps.ds
      .createQueryBuilder()
      .insert()
      .into(SandboxKeyEntity)
      .values({
        id: newId('skey'),
        purpose: 'holder',
        owner: persona,
        privateJwk: JSON.stringify(privateJwk),
        publicJwk: JSON.stringify({ kty, crv, x, y }),
        createdAt: this.deps.clock.now(),
      })
      .orIgnore()
      .execute();
  }
}

const importEcPrivateKey = (jwk: JsonWebKey): Promise<CryptoKey> =>
  webcrypto.subtle.importKey('jwk', jwk, { name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
  ]) as Promise<CryptoKey>;

/** For tests and tools: a base64url IssuerSigned's MSO validity. */
export const mdocValidityOf = (credential: string) =>
  IssuerSigned.fromEncodedForOid4Vci(credential).issuerAuth.mobileSecurityObject.validityInfo;

/** Seeds the sandbox mdoc issuer (idempotent); for SandboxIssuer.ensureSeeded or the composition root. */
export const ensureMdocSeeded = (deps: { ds: DataSource; clock: Clock; baseUrl?: string }): Promise<void> =>
  new SandboxMdocIssuer(deps).ensureSeeded();
