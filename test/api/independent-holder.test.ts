// An independent holder against our verifier: a phone wallet built only on public libraries, the WALLET side of
// @openid4vc/openid4vp (Openid4vpClient), `dcql` for matching, @sd-jwt/sd-jwt-vc present() for selective
// disclosure and its own key-binding JWT (jose). It imports nothing of our reference wallet: what it shares with
// the service is the credential the sandbox issuer issued to its holder key (provisioning, like any wallet that
// received a PID) and the verifier root it trusts for signed requests.
// It completes, cross-device over real HTTP, (a) an identify step and (b) a sign step on a multipart session with
// a PDF, and the test asserts what the business observes: the completed session, its signed webhooks, the
// claims, the document hashes and a holder signature that verifies under holder_key.
//
// Library limitation (worked around transparently): @openid4vc/* refuse http:// request_uri/response_uri
// unless their process-wide `allowInsecureUrls` is on. The test service is served over http://127.0.0.1, and
// createService turns the flag on outside production for http HOSTED_URLs (jar.ts allowInsecureWalletUrls).
// The holder runs in the same process and module instance, so it inherits that flag; the first test proves the
// library would otherwise refuse, so the relaxation is visible rather than silent.
import { execFile } from 'node:child_process';
import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import path from 'node:path';
import {
  type Openid4vpAuthorizationRequest,
  type Openid4vpAuthorizationRequestDcApi,
  Openid4vpClient,
} from '@openid4vc/openid4vp';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { DcqlQuery, type DcqlSdJwtVcCredential } from 'dcql';
import {
  base64url,
  CompactEncrypt,
  calculateJwkThumbprint,
  compactVerify,
  decodeJwt,
  exportJWK,
  importJWK,
  importX509,
  type JWK,
  SignJWT,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowInsecureWalletUrls } from '../../server/src/modules/relying-party/jar';
import { loadSandboxKey } from '../../server/src/modules/sandbox/sandbox-issuer';
import { Api, createBusiness, type Json, startTestService, type TestService } from '../support/harness';
import { createSignSession, pdfPart, setUpSignWorkflow } from '../support/sign-workflow';
import { SignerClient } from '../support/signer';
import { signatureValid, WebhookReceiver } from '../support/webhook-receiver';
import { minimalPdf, publishWorkflow } from '../support/workflows';

type Callbacks = ConstructorParameters<typeof Openid4vpClient>[0]['callbacks'];
type LibJwk = Parameters<Callbacks['encryptJwe']>[0]['publicJwk'];
type RequestPayload = Openid4vpAuthorizationRequest | Openid4vpAuthorizationRequestDcApi;

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const pem = (b64: string) => `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----`;
/** The transaction data types this wallet knows how to show its user (OpenID4VP: refuse unknown types). */
const KNOWN_TX_TYPES = new Set(['urn:service:sign:1', 'urn:service:attest:1']);

/**
 * The holder: one SD-JWT VC, its private key, and the verifier roots it trusts. Everything protocol-side goes
 * through Openid4vpClient with callbacks implemented here on node:crypto and jose.
 */
class IndependentHolder {
  /** What the holder's user saw and agreed to in the last exchange (for assertions). */
  lastRequest?: RequestPayload;
  lastTransactionData: { encoded: string; decoded: Json }[] = [];

  constructor(
    private readonly credential: string,
    private readonly holderPrivateJwk: JWK,
    private readonly trustedRootsPem: string[],
  ) {}

  private readonly hasher = (data: string | ArrayBuffer, alg: string) => {
    if (alg.toLowerCase() !== 'sha-256') throw new Error(`unsupported hash ${alg}`);
    return new Uint8Array(sha256(typeof data === 'string' ? data : new Uint8Array(data)));
  };

  private readonly callbacks: Callbacks = {
    fetch: (input, init) => fetch(input, init),
    hash: (data, alg) => {
      if (alg !== 'sha-256') throw new Error(`unsupported hash ${alg}`);
      return new Uint8Array(sha256(data));
    },
    // Request objects: signed by the x5c leaf, the leaf chained to a root this wallet trusts (not in x5c).
    verifyJwt: async (signer, jwt) => {
      if (signer.method !== 'x5c' || signer.alg !== 'ES256') return { verified: false };
      try {
        const [leafB64, ...rest] = signer.x5c;
        const leaf = new X509Certificate(Buffer.from(leafB64 as string, 'base64'));
        const roots = this.trustedRootsPem.map((p) => new X509Certificate(p));
        const now = new Date();
        const chain = [leaf, ...rest.map((c) => new X509Certificate(Buffer.from(c, 'base64')))];
        for (const [i, cert] of chain.entries()) {
          if (new Date(cert.validFrom) > now || new Date(cert.validTo) < now) return { verified: false };
          if (roots.some((r) => r.raw.equals(cert.raw))) return { verified: false }; // anchor sent in x5c
          const issuer = chain[i + 1] ?? roots.find((r) => cert.checkIssued(r));
          if (!issuer || !cert.checkIssued(issuer) || !cert.verify(issuer.publicKey))
            return { verified: false };
        }
        if (leaf.checkIssued(leaf)) return { verified: false }; // self-signed leaf
        const key = await importX509(pem(leafB64 as string), 'ES256', { extractable: true });
        await compactVerify(jwt.compact, key, { algorithms: ['ES256'] });
        return { verified: true, signerJwk: (await exportJWK(key)) as LibJwk };
      } catch {
        return { verified: false };
      }
    },
    getX509CertificateMetadata: (certificate) => {
      const names = (new X509Certificate(Buffer.from(certificate, 'base64')).subjectAltName ?? '')
        .split(',')
        .map((s) => s.trim());
      return {
        sanDnsNames: names.filter((n) => n.startsWith('DNS:')).map((n) => n.slice(4)),
        sanUriNames: names.filter((n) => n.startsWith('URI:')).map((n) => n.slice(4)),
      };
    },
    // direct_post.jwt: ECDH-ES to the verifier's ephemeral key, apu/apv as the library computed them.
    encryptJwe: async (encryptor, data) => {
      const jwe = await new CompactEncrypt(new TextEncoder().encode(data))
        .setProtectedHeader({
          alg: encryptor.alg,
          enc: encryptor.enc,
          ...(encryptor.publicJwk.kid ? { kid: encryptor.publicJwk.kid } : {}),
        })
        .setKeyManagementParameters({
          ...(encryptor.apu ? { apu: base64url.decode(encryptor.apu) } : {}),
          ...(encryptor.apv ? { apv: base64url.decode(encryptor.apv) } : {}),
        })
        .encrypt(await importJWK(encryptor.publicJwk as JWK, encryptor.alg));
      return { jwe, encryptionJwk: encryptor.publicJwk };
    },
    signJwt: () => {
      throw new Error('this holder sends unsigned (encrypted) responses');
    },
    decryptJwe: () => {
      throw new Error('this holder does not accept encrypted request objects');
    },
  };

  private readonly client = new Openid4vpClient({ callbacks: this.callbacks });

  /** Scans an openid4vp:// link, resolves and checks the request, presents, and posts to response_uri. */
  async answer(link: string): Promise<{ status: number; body: unknown }> {
    const parsed = this.client.parseOpenid4vpAuthorizationRequest({ authorizationRequest: link });
    expect(parsed.type).toBe('jar'); // a request_uri by reference, not an unsigned request
    const resolved = await this.client.resolveOpenId4vpAuthorizationRequest({
      authorizationRequestPayload: parsed.params,
    });
    const request = resolved.authorizationRequestPayload;
    this.lastRequest = request;
    expect(resolved.jar?.signer.method).toBe('x5c');
    expect(resolved.client.prefix).toBe('x509_hash');
    if (!resolved.dcql) throw new Error('this holder answers DCQL requests only');
    const query = DcqlQuery.parse(resolved.dcql.query as DcqlQuery.Input);
    DcqlQuery.validate(query);

    // Transaction data: every entry must be of a type this wallet shows its user, for a query of the request.
    this.lastTransactionData = (resolved.transactionData ?? []).map((t) => {
      if (!KNOWN_TX_TYPES.has(t.transactionData.type)) throw new Error('unknown transaction data type');
      const algs = t.transactionData.transaction_data_hashes_alg ?? ['sha-256'];
      if (!algs.includes('sha-256')) throw new Error('no hash algorithm in common');
      return { encoded: t.encoded, decoded: t.transactionData as Json };
    });

    // Match the query against the one credential this wallet holds.
    const sdjwt = new SDJwtVcInstance({ hasher: this.hasher, hashAlg: 'sha-256' });
    const claims = (await sdjwt.getClaims(this.credential)) as Json;
    const candidate: DcqlSdJwtVcCredential = {
      credential_format: 'dc+sd-jwt',
      vct: String(claims.vct),
      claims: claims as DcqlSdJwtVcCredential['claims'],
      cryptographic_holder_binding: true,
    };
    const result = DcqlQuery.query(query, [candidate]);
    if (!result.can_be_satisfied) throw new Error('this holder cannot answer the query');

    const vpToken: Record<string, [string]> = {};
    for (const [queryId, match] of Object.entries(result.credential_matches)) {
      if (!match.success) continue;
      const output = match.valid_credentials[0].claims.valid_claim_sets[0].output as Json;
      const frame = Object.fromEntries(Object.keys(output).map((k) => [k, true]));
      // Selective disclosure with the library; the key binding is this wallet's own JWT.
      const disclosed = await sdjwt.present(this.credential, frame);
      expect(disclosed.endsWith('~')).toBe(true);
      const tx = this.lastTransactionData.filter((t) =>
        (t.decoded.credential_ids as string[]).includes(queryId),
      );
      const kb = await new SignJWT({
        nonce: request.nonce,
        aud: resolved.client.effective, // the client_id for a redirect-based (cross-device) request
        iat: Math.floor(Date.now() / 1000),
        sd_hash: base64url.encode(sha256(disclosed)),
        // OpenID4VP B.3: hashes over the exact strings received, never a re-serialization
        ...(tx.length > 0
          ? {
              transaction_data_hashes: tx.map((t) => base64url.encode(sha256(t.encoded))),
              transaction_data_hashes_alg: 'sha-256',
            }
          : {}),
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'kb+jwt' })
        .sign(await importJWK(this.holderPrivateJwk, 'ES256'));
      vpToken[queryId] = [disclosed + kb];
    }

    const response = await this.client.createOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: request,
      authorizationResponsePayload: { vp_token: vpToken },
      jarm: {
        encryption: { nonce: randomBytes(16).toString('base64url') },
        serverMetadata: {
          authorization_signing_alg_values_supported: ['ES256'],
          authorization_encryption_alg_values_supported: ['ECDH-ES'],
          authorization_encryption_enc_values_supported: ['A128GCM', 'A256GCM'],
        },
      },
    });
    if (!response.jarm) throw new Error('expected an encrypted direct_post.jwt response');
    expect(response.jarm.responseJwt.split('.')).toHaveLength(5);
    const submitted = await this.client.submitOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: request as Openid4vpAuthorizationRequest,
      authorizationResponsePayload: response.authorizationResponsePayload,
      jarm: { responseJwt: response.jarm.responseJwt },
    });
    expect(submitted.responseMode).toBe('direct_post.jwt');
    const text = await submitted.response.text();
    return { status: submitted.response.status, body: text ? JSON.parse(text) : undefined };
  }
}

/** What @openid4vc/openid4vp does with an http:// request_uri by default, in a fresh node process. */
function libraryDefaultForHttpRequestUri(): Promise<string> {
  const script = `
    import { createHash } from 'node:crypto';
    import { Openid4vpClient } from '@openid4vc/openid4vp';
    // the URL check runs before any callback is needed
    const hash = (d) => new Uint8Array(createHash('sha256').update(d).digest());
    new Openid4vpClient({ callbacks: { hash } })
      .resolveOpenId4vpAuthorizationRequest({
        authorizationRequestPayload: { client_id: 'x509_hash:abc', request_uri: 'http://127.0.0.1:9/oid4vp/requests/x' },
      })
      .then(() => console.log('accepted'), (e) => console.log('refused: ' + String(e?.message)));`;
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      { cwd: path.dirname(import.meta.dirname), timeout: 30_000 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout.trim()),
    ),
  );
}
describe('an independent holder (wallet side of @openid4vc/openid4vp) against our verifier', () => {
  const receiver = new WebhookReceiver();
  let t: TestService;
  let api: Api;
  let secret: string;
  let identifyWf: string;
  let signWf: string;
  let holder: IndependentHolder;
  let holderPublicJwk: JWK;
  let insecureRefused: string;

  beforeAll(async () => {
    // The library's default: it refuses http:// request_uris. Read in a node process of its own, since a service
    // started anywhere in this test process (suites share their worker) has turned it off for the process.
    insecureRefused = await libraryDefaultForHttpRequestUri();
    t = await startTestService({ label: 'independent_holder' });
    // createService already did this for the http:// test origin; said here explicitly (idempotent).
    await allowInsecureWalletUrls();
    await receiver.start();
    const biz = await createBusiness(t);
    api = new Api(t.baseUrl, biz.apiKey);
    ({ workflowId: identifyWf, webhookSecret: secret } = (await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name', 'family_name', 'birth_date', 'document_status'] }],
      receiver.url,
    )) as { workflowId: string; webhookSecret: string });
    ({ workflowId: signWf } = await setUpSignWorkflow(api));

    // Provisioning: the holder's own PID from the sandbox issuer (issued to the persona's holder key) and that
    // key. From here on, nothing of the service's wallet code is involved.
    const credential = await t.svc.sandboxIssuer.issueFor('adult');
    const key = await loadSandboxKey(t.svc.ds, 'holder', 'adult');
    holderPublicJwk = key.publicJwk as JWK;
    const root = await (await fetch(`${t.baseUrl}/oid4vp/verifier-root.pem`)).text();
    holder = new IndependentHolder(credential, key.privateJwk as JWK, [root]);
  });
  afterAll(async () => {
    await receiver.stop();
    await t?.stop();
  });

  async function crossDeviceLink(created: { status: number; body: Json }) {
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const signer = new SignerClient(t.baseUrl, id);
    expect((await signer.start()).status).toBe(200);
    await signer.showCurrentDocuments(); // as the page does on a sign step (ADR 0029)
    const cd = await signer.call('POST', '/wallet-request/cross_device');
    expect(cd.status).toBe(200);
    return { id, signer, link: cd.body.uri as string };
  }

  async function hooksOf(id: string, count: number) {
    await expect
      .poll(() => receiver.deliveries.filter((d) => d.body.data.session_id === id).length, {
        timeout: 20_000,
      })
      .toBeGreaterThanOrEqual(count);
    return receiver.deliveries.filter((d) => d.body.data.session_id === id);
  }

  it('the library refuses http:// URLs by default (the flag the dev service turns on)', () => {
    expect(insecureRefused).toMatch(/^refused: .*must be an https:\/\/ url/s);
  });

  it('(a) completes an identify step cross-device: request_uri, JAR under the x5c leaf, direct_post.jwt', async () => {
    const { id, signer, link } = await crossDeviceLink(
      await api.rest('POST', '/v1/sessions', { workflow_id: identifyWf }),
    );
    // The JAR check is real: a holder that does not trust our verifier root refuses the request (the library
    // calls verifyJwt with the x5c signer, which finds no chain), and nothing is sent.
    const distrusting = new IndependentHolder('unused', {}, []);
    await expect(distrusting.answer(link)).rejects.toThrow(/verification of jwt/);
    expect((await signer.session()).body.status).toBe('in_progress');

    const answer = await holder.answer(link);
    expect(answer).toEqual({
      status: 200,
      // the same-device redirect back to the hosted page (ADR 0050)
      body: { redirect_uri: expect.stringMatching(/\/s\/[^/]+\/return#response_code=[\w-]{43}$/) },
    });
    const request = holder.lastRequest as Openid4vpAuthorizationRequest;
    expect(request.response_mode).toBe('direct_post.jwt');
    expect(request.client_id).toMatch(/^x509_hash:/);

    // The hosted page (polling its projection) and the business see the step done.
    expect((await signer.session()).body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
    expect(read.body.results).toHaveLength(1);
    expect(read.body.results[0]).toMatchObject({
      stage: 0,
      primitive: 'identify',
      audit_id: `${id}_0`,
      claims: {
        given_name: 'Erika',
        family_name: 'Mustermann',
        birth_date: '1984-01-12',
        document_status: 'valid',
      },
    });
    // only what was asked: the holder disclosed no nationality, the business gets none
    expect(read.body.results[0].claims).not.toHaveProperty('nationality');

    const hooks = await hooksOf(id, 2);
    expect(hooks.map((d) => d.body.event)).toEqual(['step.completed', 'session.completed']);
    expect(hooks.every((d) => signatureValid(d, secret))).toBe(true);
    expect(hooks[0]?.body.data.claims).toEqual(read.body.results[0].claims);

    const audit = await api.rest('GET', `/v1/audits/${id}_0`);
    expect(audit.status).toBe(200);
    expect(audit.body.verification).toMatchObject({
      protocol: 'openid4vp-cross-device',
      audience: request.client_id,
      holder_binding: { by: 'first', bound_to_stage: null },
    });
    // ADR 0046: an identify step's record carries no holder key (the sign step below checks the thumbprint)
    expect(JSON.stringify(audit.body)).not.toContain(await calculateJwkThumbprint(holderPublicJwk, 'sha256'));
  });

  it('(b) completes a sign step on a PDF: transaction_data_hashes over the exact strings received', async () => {
    const pdf = minimalPdf('Loan agreement L-7');
    const { id, link } = await crossDeviceLink(
      await createSignSession(api, signWf, [pdfPart('loan.pdf', pdf)], { metadata: '{"ref":"L-7"}' }),
    );
    const answer = await holder.answer(link);
    expect(answer).toEqual({
      status: 200,
      // the same-device redirect back to the hosted page (ADR 0050)
      body: { redirect_uri: expect.stringMatching(/\/s\/[^/]+\/return#response_code=[\w-]{43}$/) },
    });

    // What the holder's user was shown: the document's label and hash, which match the file the business sent.
    const [tx] = holder.lastTransactionData;
    expect(holder.lastTransactionData).toHaveLength(1);
    expect(tx?.decoded).toMatchObject({
      type: 'urn:service:sign:1',
      documents: [
        {
          label: 'loan.pdf',
          sha256: sha256(pdf).toString('hex'),
          size: pdf.length,
          content_type: 'application/pdf',
        },
      ],
    });

    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
    const result = read.body.results[0];
    expect(result.documents).toEqual([
      {
        label: 'loan.pdf',
        sha256: sha256(pdf).toString('hex'),
        size: pdf.length,
        content_type: 'application/pdf',
      },
    ]);
    expect(result.transaction_data).toBe(tx?.encoded);

    // The business checks the holder signature offline: it verifies under holder_key, which is the holder's key,
    // is bound to our request, and covers exactly the transaction data (hence the document hash).
    const { protectedHeader } = await compactVerify(
      result.holder_signature,
      await importJWK(result.holder_key.jwk, 'ES256'),
    );
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'kb+jwt' });
    expect(result.holder_key.jwk).toEqual(holderPublicJwk);
    expect(result.holder_key.thumbprint).toBe(await calculateJwkThumbprint(holderPublicJwk, 'sha256'));
    const kb = decodeJwt(result.holder_signature);
    expect(kb.aud).toBe((holder.lastRequest as Openid4vpAuthorizationRequest).client_id);
    expect(kb.nonce).toBe(holder.lastRequest?.nonce);
    expect(kb.transaction_data_hashes).toEqual([base64url.encode(sha256(result.transaction_data))]);
    expect(kb.transaction_data_hashes_alg).toBe('sha-256');
    const signedDocs = JSON.parse(Buffer.from(result.transaction_data, 'base64url').toString('utf8'));
    expect(signedDocs.documents[0].sha256).toBe(sha256(pdf).toString('hex'));

    const hooks = await hooksOf(id, 2);
    expect(hooks.map((d) => d.body.event)).toEqual(['step.completed', 'session.completed']);
    expect(hooks.every((d) => signatureValid(d, secret))).toBe(true);
    const hookData = hooks[0]?.body.data ?? {};
    const { session_id: _s, stage: _st, primitive: _p, audit_id: _a, ...hookResult } = hookData as Json;
    const { stage: _rs, primitive: _rp, audit_id: _ra, completed_at: _rc, ...readResult } = result;
    expect(hookResult).toEqual(readResult);
  });
});
