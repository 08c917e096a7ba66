// Owns the mdoc side of the sandbox reference wallet: it answers an OpenID4VP request's mso_mdoc credential
// query like a real wallet: parse the request (@openid4vc/openid4vp), match the DCQL query (dcql) against the
// persona's mdoc documents, disclose only the requested elements, put the hash of each transaction_data entry
// for the answered query into DeviceSigned (a namespace named like the type: transaction_data_hash,
// transaction_data_hash_alg), and sign DeviceAuth with the persona's holder key over the SessionTranscript of
// the request and those device-signed namespaces (@owf/mdoc DeviceResponse; DC API handover by default). The
// vp_token entry is the base64url DeviceResponse. Overrides make it lie in one precise way for negative tests.
import { generateKeyPairSync } from 'node:crypto';
import { parseOpenid4vpAuthorizationRequest } from '@openid4vc/openid4vp';
import {
  CoseKey,
  cborDecode,
  cborEncode,
  DataItem,
  DeviceNamespaces,
  DeviceRequest,
  DeviceResponse,
  DeviceSignedItems,
  DocRequest,
  IssuerSigned,
  IssuerSignedItem,
  ItemsRequest,
} from '@owf/mdoc';
import { type DcqlMdocCredential, DcqlQuery } from 'dcql';
import type { JWK } from 'jose';
import type { DataSource } from 'typeorm';
import { In } from 'typeorm';
import type { Clock } from '../../../common/clock';
import { AppError } from '../../../common/errors';
import { annexCSessionTranscript, sealAnnexCResponse } from '../../verification/mdoc/annex-c';
import { mdocClaimPath, nearestAgeOver, toJson } from '../../verification/mdoc/mdoc-answer';
import { mdocContext } from '../../verification/mdoc/mdoc-context';
import { mdocSessionTranscript } from '../../verification/mdoc/mdoc-handover';
import { findMdocDocType, MDOC_FORMAT } from '../../verification/mdoc/mdoc-query';
import {
  decodeTransactionData,
  MDOC_TX_HASH_ALG_ELEMENT,
  MDOC_TX_HASH_ELEMENT,
  TX_HASH_ALG,
  transactionDataDigest,
} from '../../verification/transaction-data';
import { withoutTrustedAuthorities } from '../../verification/trusted-authorities';
import { findPersona } from '../personas';
import { SandboxCredentialEntity } from '../sandbox-credential.entity';
import { loadSandboxKey } from '../sandbox-issuer';
import { readTransactionData } from '../wallet-transaction-data';

/** Deviations from honest behaviour, so negative tests reuse the real wallet code path. */
export interface MdocPresentOverrides {
  /** Nonce put into the SessionTranscript instead of the request's. */
  nonce?: string;
  /** Origin put into the SessionTranscript instead of the caller's. */
  origin?: string;
  /** Private JWK that signs DeviceAuth instead of the holder (device) key. */
  deviceKey?: JsonWebKey;
  /** Change this disclosed element's value after issuance (its value digest no longer matches). */
  tamperElement?: string;
  /** Requested elements to leave undisclosed. */
  omitElements?: string[];
  /** Present without DeviceSigned (no holder binding at all). */
  omitDeviceSigned?: boolean;
  /** Present this IssuerSigned (base64url; of the persona's holder key) instead of the stored one. */
  credential?: string;
  /** Leave the device-signed transaction data out although the request carried transaction data. */
  omitTransactionData?: boolean;
  /** Put this value in every `transaction_data_hash` instead of the computed one. */
  transactionDataHash?: Uint8Array;
  /** Hash (and bind under their own types) these strings instead of the received ones (other documents or terms). */
  transactionDataSigned?: string[];
  /** `transaction_data_hash_alg` to claim instead of sha-256. */
  transactionDataHashAlg?: string;
  /** Change every device-signed transaction_data_hash AFTER signing (the device signature no longer covers it). */
  alterDeviceSignedAfterSigning?: boolean;
  /** Present the persona's document of this docType, whatever the query asks for. */
  doctype?: string;
}

export interface MdocPresentInput {
  persona: string;
  request: Record<string, unknown>;
  /** DC API: the origin the browser reports for the verifier's page. */
  origin: string;
  overrides?: MdocPresentOverrides;
  /** Cross-device: the redirect handover (client_id with prefix, response_uri) instead of the DC API one. */
  redirect?: { clientId: string; responseUri: string };
  /** The verifier's response-encryption JWK when the response will be encrypted (bound in the handover). */
  responseEncryptionJwk?: JWK;
  /** Only these of the persona's documents may be presented (a wallet choice, see personas.ts); default all. */
  doctypes?: readonly string[];
}

export interface MdocWalletResponse {
  vp_token: Record<string, string[]>;
}

type Json = Record<string, unknown>;

export class MdocReferenceWallet {
  constructor(private readonly deps: { ds: DataSource; clock: Clock }) {}

  /** Answers the first mso_mdoc credential query of the request this persona can satisfy. */
  async presentMdoc(input: MdocPresentInput): Promise<MdocWalletResponse> {
    const o = input.overrides ?? {};
    const persona = findPersona(input.persona);
    if (!persona) throw new AppError('validation_failed', 'Unknown persona.', { param: 'persona' });
    const params = parseRequest(input.request);
    let query: DcqlQuery;
    try {
      // the sandbox wallet does not filter by trusted_authorities (ADR 0050): it shows the verifier's refusal
      query = DcqlQuery.parse(withoutTrustedAuthorities(params.dcql_query) as DcqlQuery.Input);
      DcqlQuery.validate(query);
    } catch (e) {
      throw new AppError('validation_failed', 'The request has no valid dcql_query.', {
        param: 'request',
        cause: e,
      });
    }
    const mdocQueries = query.credentials.filter((c) => c.format === MDOC_FORMAT);
    if (mdocQueries.length === 0)
      throw new AppError('claims_missing', 'The request asks for no mdoc credential.');

    // The persona's documents (or the one the test hands over), as DCQL candidates.
    const stored = o.credential ? [] : await this.storedDocuments(persona.id);
    const documents = (o.credential ? [o.credential] : stored)
      .map((credential) => {
        const issuerSigned = IssuerSigned.fromEncodedForOid4Vci(credential);
        return { credential, issuerSigned, doctype: issuerSigned.issuerAuth.mobileSecurityObject.docType };
      })
      .filter((d) => o.credential || !input.doctypes || input.doctypes.includes(d.doctype));
    if (documents.length === 0) throw new AppError('claims_missing', 'This persona holds no such mdoc.');

    let chosen:
      | { queryId: string; doc: (typeof documents)[number]; elements: [string, string][] }
      | undefined;
    if (o.doctype) {
      // Answer the first mdoc query with a document of another type: its own namespace, the same element names.
      const doc = documents.find((d) => d.doctype === o.doctype);
      const first = mdocQueries[0];
      const ns = findMdocDocType(o.doctype)?.namespace;
      if (!doc || !first || !ns) throw new AppError('claims_missing', 'This persona holds no such document.');
      const held = doc.issuerSigned.getIssuerNamespace(ns) ?? [];
      const elements = (first.claims ?? [])
        .map((c) => [ns, mdocClaimPath(c)[1]] as [string, string])
        .filter(([, el]) => held.some((i) => i.elementIdentifier === el));
      chosen = { queryId: first.id, doc, elements };
    } else {
      const asked = mdocQueries.flatMap((q) => (q.claims ?? []).map(mdocClaimPath));
      const candidates: DcqlMdocCredential[] = documents.map((d) => {
        const namespaces: Record<string, Record<string, unknown>> = Object.fromEntries(
          [...(d.issuerSigned.issuerNamespaces?.issuerNamespaces ?? new Map()).entries()].map(
            ([ns, items]) => [
              ns,
              Object.fromEntries(
                items.map((i: IssuerSignedItem) => [i.elementIdentifier, toJson(i.elementValue)]),
              ),
            ],
          ),
        );
        // ISO 18013-5: an age_over_NN the document lacks is answered with the nearest age statement it holds
        // (the library's disclosure then picks that element).
        for (const [ns, el] of asked) {
          const held = namespaces[ns];
          if (!held || el in held) continue;
          const derived = nearestAgeOver(el, held);
          if (derived !== undefined) held[el] = derived;
        }
        return {
          credential_format: MDOC_FORMAT,
          doctype: d.doctype,
          namespaces,
          cryptographic_holder_binding: true,
        };
      });
      const result = DcqlQuery.query(query, candidates);
      for (const q of mdocQueries) {
        const match = result.credential_matches[q.id];
        if (!match?.success) continue;
        const valid = match.valid_credentials[0];
        const doc = documents[valid.input_credential_index];
        if (!doc) continue;
        // Disclose exactly the elements of the first satisfied claim set (all requested ones without claim_sets).
        const output = (valid.claims.valid_claim_sets[0]?.output ?? {}) as Record<string, Json>;
        const elements = Object.entries(output).flatMap(([ns, els]) =>
          Object.keys(els).map((el) => [ns, el] as [string, string]),
        );
        chosen = { queryId: q.id, doc, elements };
        break;
      }
    }
    if (!chosen) throw new AppError('claims_missing', 'This persona cannot answer the request with an mdoc.');

    const omit = new Set(o.omitElements ?? []);
    const disclosed = chosen.elements.filter(([, el]) => !omit.has(el));
    const namespaces = new Map<string, Map<string, boolean>>();
    for (const [ns, el] of disclosed) {
      const inner = namespaces.get(ns) ?? new Map<string, boolean>();
      inner.set(el, false); // intent_to_retain
      namespaces.set(ns, inner);
    }
    const deviceRequest = DeviceRequest.create({
      version: '1.0',
      docRequests: [
        DocRequest.create({ itemsRequest: ItemsRequest.create({ docType: chosen.doc.doctype, namespaces }) }),
      ],
    });
    const issuerSigned = o.tamperElement
      ? tamper(chosen.doc.issuerSigned, o.tamperElement)
      : chosen.doc.issuerSigned;
    const holder = await loadSandboxKey(this.deps.ds, 'holder', persona.id);
    // the unknown_holder_key persona signs with a fresh key, never the MSO's device key
    const signingJwk = (o.deviceKey ??
      (persona.unknownHolderKey
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' })
        : holder.privateJwk)) as Record<string, unknown>;
    // OpenID4VP B.2 / our convention: the hash of each entry for the answered query, device-signed.
    const received = readTransactionData(params, query)
      .filter((t) => t.ids.includes((chosen as { queryId: string }).queryId))
      .map((t) => t.encoded);
    const toBind = o.omitTransactionData ? [] : (o.transactionDataSigned ?? received);
    const deviceNamespaces = DeviceNamespaces.create({
      deviceNamespaces: new Map(
        toBind.map((encoded) => [
          String(decodeTransactionData(encoded).type),
          DeviceSignedItems.create({
            deviceSignedItems: new Map<string, unknown>([
              [MDOC_TX_HASH_ELEMENT, o.transactionDataHash ?? transactionDataDigest(encoded)],
              [MDOC_TX_HASH_ALG_ELEMENT, o.transactionDataHashAlg ?? TX_HASH_ALG],
            ]),
          }),
        ]),
      ),
    });
    const sessionTranscript = await mdocSessionTranscript({
      nonce: o.nonce ?? String(params.nonce),
      origin: o.origin ?? input.origin,
      redirect: input.redirect,
      responseEncryptionJwk: input.responseEncryptionJwk,
    });
    const response = await DeviceResponse.createWithDeviceRequest(
      {
        deviceRequest,
        sessionTranscript,
        issuerSigned: [issuerSigned],
        deviceNamespaces,
        signature: {
          signingKey: CoseKey.fromJwk({
            kty: signingJwk.kty,
            crv: signingJwk.crv,
            x: signingJwk.x,
            y: signingJwk.y,
            d: signingJwk.d,
            alg: 'ES256',
          }),
        },
      },
      mdocContext,
    );
    let encoded = response.encodedForOid4Vp;
    if (o.omitDeviceSigned) encoded = withoutDeviceSigned(encoded);
    if (o.alterDeviceSignedAfterSigning) encoded = withAlteredTransactionDataHash(encoded);
    return { vp_token: { [chosen.queryId]: [encoded] } };
  }

  /**
   * Answers an ISO 18013-7 Annex C request ({deviceRequest, encryptionInfo}, org-iso-mdoc) like Apple Wallet
   * would: the first DocRequest this persona holds a document for with every requested element, a device
   * signature over the dcapi SessionTranscript bound to `origin`, and the DeviceResponse HPKE-sealed to the
   * request's recipient key.
   */
  async presentAnnexC(input: {
    persona: string;
    request: { deviceRequest: string; encryptionInfo: string };
    origin: string;
    doctypes?: readonly string[];
  }): Promise<{ response: string }> {
    const persona = findPersona(input.persona);
    if (!persona) throw new AppError('validation_failed', 'Unknown persona.', { param: 'persona' });
    let asked: DeviceRequest;
    try {
      asked = DeviceRequest.decode(Buffer.from(input.request.deviceRequest, 'base64url'));
    } catch (e) {
      throw new AppError('validation_failed', 'deviceRequest is not a CBOR DeviceRequest.', {
        param: 'request',
        cause: e,
      });
    }
    const documents = (await this.storedDocuments(persona.id))
      .map((credential) => IssuerSigned.fromEncodedForOid4Vci(credential))
      .filter((d) => {
        const doctype = d.issuerAuth.mobileSecurityObject.docType;
        return !input.doctypes || input.doctypes.includes(doctype);
      });
    for (const docRequest of asked.docRequests) {
      const { docType, namespaces } = docRequest.itemsRequest;
      const doc = documents.find(
        (d) =>
          d.issuerAuth.mobileSecurityObject.docType === docType &&
          [...namespaces].every(([ns, els]) =>
            [...els.keys()].every((el) =>
              (d.getIssuerNamespace(ns) ?? []).some((i) => i.elementIdentifier === el),
            ),
          ),
      );
      if (!doc) continue;
      const holder = await loadSandboxKey(this.deps.ds, 'holder', persona.id);
      const jwk = holder.privateJwk as Record<string, unknown>;
      const response = await DeviceResponse.createWithDeviceRequest(
        {
          deviceRequest: DeviceRequest.create({ version: '1.0', docRequests: [docRequest] }),
          sessionTranscript: annexCSessionTranscript(input.request.encryptionInfo, input.origin),
          issuerSigned: [doc],
          signature: {
            signingKey: CoseKey.fromJwk({
              kty: jwk.kty,
              crv: jwk.crv,
              x: jwk.x,
              y: jwk.y,
              d: jwk.d,
              alg: 'ES256',
            }),
          },
        },
        mdocContext,
      );
      return sealAnnexCResponse({
        deviceResponse: response.encode(),
        encryptionInfo: input.request.encryptionInfo,
        origin: input.origin,
      });
    }
    throw new AppError('claims_missing', 'This persona cannot answer the request with an mdoc.');
  }

  private async storedDocuments(persona: string): Promise<string[]> {
    const rows = await this.deps.ds
      .getRepository(SandboxCredentialEntity)
      .find({ where: { persona, format: In(['mso_mdoc']) }, order: { id: 'ASC' } });
    return rows.map((r) => r.credential);
  }
}

function parseRequest(request: Record<string, unknown>): Json {
  try {
    const parsed = parseOpenid4vpAuthorizationRequest({ authorizationRequest: request });
    if (parsed.type !== 'openid4vp_dc_api' && parsed.type !== 'openid4vp') {
      throw new Error(`unexpected request type ${parsed.type}`);
    }
    return parsed.params as Json;
  } catch (e) {
    throw new AppError('validation_failed', 'The request is not an unsigned OpenID4VP request.', {
      param: 'request',
      cause: e,
    });
  }
}

/** A copy of the IssuerSigned whose element `element` carries another value (same digestID and random). */
function tamper(issuerSigned: IssuerSigned, element: string): IssuerSigned {
  const copy = IssuerSigned.decode(issuerSigned.encode());
  for (const [ns, items] of copy.issuerNamespaces.issuerNamespaces) {
    const i = items.findIndex((it) => it.elementIdentifier === element);
    if (i < 0) continue;
    const item = items[i] as IssuerSignedItem;
    const value = item.elementValue;
    items[i] = IssuerSignedItem.fromOptions({
      digestId: item.digestId,
      random: item.random,
      elementIdentifier: element,
      elementValue: typeof value === 'boolean' ? !value : 'Tampered',
    });
    copy.issuerNamespaces.setIssuerNamespace(ns, items);
    return copy;
  }
  throw new Error(`the document has no element ${element} to tamper with`);
}

/** The same DeviceResponse with every device-signed transaction_data_hash changed, signature kept (CBOR edit). */
function withAlteredTransactionDataHash(encoded: string): string {
  // A CBOR-level edit: the patched @owf/mdoc re-encodes a decoded DeviceSigned with its DeviceNameSpacesBytes
  // as received (ADR 0045, "mdoc"), so changing the decoded map would not change the bytes sent.
  const raw = cborDecode<Map<string, unknown>>(Buffer.from(encoded, 'base64url'));
  for (const d of (raw.get('documents') as Map<string, unknown>[] | undefined) ?? []) {
    const deviceSigned = d.get('deviceSigned') as Map<string, unknown> | undefined;
    const nameSpaces = deviceSigned?.get('nameSpaces');
    if (!deviceSigned || !(nameSpaces instanceof DataItem)) continue;
    const namespaces = nameSpaces.data as Map<string, Map<string, unknown>>;
    for (const items of namespaces.values()) {
      const hash = items.get(MDOC_TX_HASH_ELEMENT);
      if (hash instanceof Uint8Array)
        items.set(
          MDOC_TX_HASH_ELEMENT,
          hash.map((b) => b ^ 0xff),
        );
    }
    deviceSigned.set('nameSpaces', DataItem.fromData(namespaces));
  }
  return Buffer.from(cborEncode(raw)).toString('base64url');
}

/** The same DeviceResponse with every document's DeviceSigned removed (CBOR-level edit). */
function withoutDeviceSigned(encoded: string): string {
  const raw = cborDecode<Map<string, unknown>>(Buffer.from(encoded, 'base64url'));
  for (const d of (raw.get('documents') as Map<string, unknown>[] | undefined) ?? [])
    d.delete('deviceSigned');
  return Buffer.from(cborEncode(raw)).toString('base64url');
}
