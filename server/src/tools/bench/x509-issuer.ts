// The verification bench's X.509-anchored SD-JWT VC issuer: the way real issuers are trusted (an operator's or an
// ETSI list's anchor), not by a configured key like the sandbox issuer. A root CA stored as the route's anchor,
// an issuing CA and a signer certificate naming the issuer; the credential carries x5c [signer, issuing CA] and a
// status list signed by the same signer. Returns the input of one verification (PresentationVerifier.verify).
import { webcrypto } from 'node:crypto';
import { digest, ES256 } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import type { DataSource } from 'typeorm';
import { ensureRoute } from '../../modules/catalog/catalog.factory';
import { PID_VCT } from '../../modules/verification/dcql';
import { buildWalletRequest, newWalletNonce } from '../../modules/verification/request';
import { TrustStore } from '../../modules/verification/trust';
import {
  issueCertificate,
  issueSdJwtVc,
  publicJwkOf,
  rootCa,
  statusListToken,
  x5cOf,
} from '../../modules/verification/x509-test-pki';

const ISS = 'https://pid.bench.example/issuer';
const LIST_URI = 'https://pid.bench.example/status/1';
const ORIGIN = 'https://hosted.bench.example';

export async function x509IssuerPresentation(ds: DataSource) {
  const now = new Date();
  const validity = {
    notBefore: new Date(now.getTime() - 86_400_000),
    notAfter: new Date(now.getTime() + 365 * 86_400_000),
  };
  const root = await rootCa('Bench PID Root CA', validity);
  const ca = await issueCertificate(root, 'Bench PID Issuing CA', { ca: true, ...validity });
  const signer = await issueCertificate(ca, 'Bench PID signer', {
    san: [{ type: 'url', value: ISS }],
    ...validity,
  });
  const routeId = 'rte_bench_x509';
  await ensureRoute(ds, { id: routeId, walletId: 'wal_bench', issuerId: 'iss_bench', identifier: ISS, now });
  await new TrustStore(ds).addAnchor({
    issuer: ISS,
    environment: 'sandbox',
    routeId,
    name: 'Bench PID Root',
    certificate: root.cert.toString('pem'),
    now,
  });
  const iat = Math.floor(now.getTime() / 1000);
  const listToken = await statusListToken({ signer, uri: LIST_URI, iat });
  const holder = (await rootCa('holder', validity)).keys;
  const credential = await issueSdJwtVc({
    signer,
    x5c: x5cOf(signer, ca),
    payload: {
      iss: ISS,
      iat,
      exp: iat + 86_400 * 30,
      vct: PID_VCT,
      cnf: { jwk: await publicJwkOf({ keys: holder }) },
      status: { status_list: { idx: 3, uri: LIST_URI } },
      given_name: 'Erika',
      family_name: 'Mustermann',
    },
    disclosable: ['given_name', 'family_name'],
  });
  const nonce = newWalletNonce();
  const { request, credentialQueryId } = buildWalletRequest({
    nonce,
    claims: ['given_name', 'family_name', 'document_status'],
    vct: PID_VCT,
  });
  const wallet = new SDJwtVcInstance({
    hasher: digest,
    hashAlg: 'sha-256',
    kbSigner: await ES256.getSigner(await webcrypto.subtle.exportKey('jwk', holder.privateKey)),
    kbSignAlg: 'ES256',
  });
  const presentation = await wallet.present(
    credential,
    { given_name: true, family_name: true },
    { kb: { payload: { iat, aud: `origin:${ORIGIN}`, nonce } } },
  );
  return {
    /** The issuer's status list, as a fetcher would return it. */
    fetchStatusList: async (_uri: string) => listToken,
    input: {
      request,
      expectedNonce: nonce,
      expectedAudience: `origin:${ORIGIN}`,
      environment: 'sandbox' as const,
      response: { vp_token: { [credentialQueryId]: [presentation] } },
    },
  };
}
