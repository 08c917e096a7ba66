// The trust stamp (ADR 0063) across nodes on one database: this node answers its wallet requests' and wallet
// responses' trust from its per-instance caches while nothing changed (no trust read on a warm path), and trust
// changed through another node (a second service on the same database, or the operator CLI in its own process)
// counts at this node's very next request: a retired issuer or IACA is refused, a new IACA is offered.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_ROUTE_ID } from '../../server/src/modules/catalog/catalog.seed';
import { loadSandboxKey, SANDBOX_ISSUER_OWNER } from '../../server/src/modules/sandbox/sandbox-issuer';
import { StepResultEntity } from '../../server/src/modules/session/step-result.entity';
import { MDOC_PID } from '../../server/src/modules/verification/mdoc/mdoc-query';
import { createService, type Service } from '../../server/src/service';
import { countStatements, type StatementCounter } from '../../server/src/tools/bench/statements';
import { testConfig, testEngine } from '../support/config';
import { runOperator } from '../support/dashboard';
import { Api, freePort, type TestService } from '../support/harness';
import { identifyFixture } from '../support/page-fixture';
import { trustNewPidIaca } from '../support/pid-iaca';
import { SignerClient } from '../support/signer';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are arbitrary JSON that each test asserts field by field
type Json = Record<string, any>;

describe.skipIf(testEngine() === 'embedded')(
  'the trust stamp: cached trust is never stale across nodes',
  () => {
    const page = identifyFixture({ workers: false, label: 'truststamp' });
    let t: TestService;
    let other: Service;
    let api: Api;
    let workflowId: string;
    let counter: StatementCounter;
    let operatorEnv: Record<string, string>;

    beforeAll(async () => {
      ({ t, api, workflowId } = page);
      // a second service on the same database, data dir and public URL: another node behind the same name
      other = await createService(
        testConfig({
          port: await freePort(),
          dataDir: t.svc.config.dataDir,
          databaseUrl: t.db.url,
          baseUrl: t.baseUrl,
        }),
        { workers: false },
      );
      operatorEnv = { DATABASE_URL: t.db.url, DATA_DIR: t.svc.config.dataDir, BASE_URL: t.baseUrl };
      counter = await countStatements(t.svc.ds);
    }, 90_000);
    afterAll(async () => {
      counter?.close();
      await other?.close();
    });

    /** A started session of this node at its wallet step: the request, and what the statements of it read. */
    async function atWalletStep() {
      const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
      expect(created.status).toBe(201);
      const signer = new SignerClient(t.baseUrl, created.body.id);
      expect((await signer.start()).status).toBe(200);
      counter.reset();
      const wr = await signer.walletRequest();
      expect(wr.status).toBe(200);
      return {
        id: created.body.id as string,
        signer,
        wr: wr.body as Json,
        read: [...counter.byText().keys()],
      };
    }

    /** The reference wallet's answer for `persona`, submitted to this node; what the submission read. */
    async function answer(at: Awaited<ReturnType<typeof atWalletStep>>, persona: string) {
      const response = await t.svc.wallet.respond({ persona, request: at.wr.request, origin: t.baseUrl });
      counter.reset();
      const res = await at.signer.submit(at.wr.request_id, response);
      return { res, read: [...counter.byText().keys()] };
    }

    const reads = (texts: string[], table: string) =>
      texts.filter((s) => new RegExp(`\\b${table}\\b`).test(s));
    const mdocQuery = (wr: Json) =>
      (wr.request.dcql_query.credentials as Json[]).find((c) => c.meta?.doctype_value === MDOC_PID.doctype);

    it('a warm node reads no trust; an issuer retired through the operator CLI is refused at the next answer, trusted again the next completes', async () => {
      await answer(await atWalletStep(), 'adult'); // warm: the first read of each trust fills this node's caches
      const warm = await atWalletStep();
      expect(reads(warm.read, 'mdoc_trust_anchor')).toEqual([]);
      const done = await answer(warm, 'adult');
      expect(done.res.status).toBe(200);
      expect(reads(done.read, 'trusted_issuer')).toEqual([]);

      const pending = await atWalletStep();
      const issuer = t.svc.sandboxIssuer.issuerId;
      const retired = await runOperator(
        ['distrust-issuer', '--env', 'sandbox', '--issuer', issuer, '--operator', 'ops-ann'],
        operatorEnv,
      );
      expect(retired.stderr).toBe('');
      expect(retired.code).toBe(0);
      const refused = await answer(pending, 'adult');
      expect(refused.res.status).toBe(422);
      expect(refused.res.body.code).toBe('issuer_untrusted');
      expect(await t.svc.ds.getRepository(StepResultEntity).countBy({ sessionId: pending.id })).toBe(0);

      const key = await loadSandboxKey(t.svc.ds, 'issuer', SANDBOX_ISSUER_OWNER);
      const jwkFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'trust-stamp-')), 'issuer.jwk');
      fs.writeFileSync(jwkFile, JSON.stringify(key.publicJwk));
      const trusted = await runOperator(
        [
          'trust-issuer',
          '--env',
          'sandbox',
          '--issuer',
          issuer,
          '--jwk',
          jwkFile,
          '--route',
          SANDBOX_ROUTE_ID,
          '--name',
          'again',
          '--operator',
          'ops-ann',
        ],
        operatorEnv,
      );
      expect(trusted.stderr).toBe('');
      expect(trusted.code).toBe(0);
      expect((await answer(await atWalletStep(), 'adult')).res.status).toBe(200);
    }, 120_000);

    it('an IACA added on another node is offered by the next wallet request here; retired there, the next mdoc answer here is refused', async () => {
      await answer(await atWalletStep(), 'adult_mdoc'); // warm
      const before = await atWalletStep();
      expect(reads(before.read, 'mdoc_trust_anchor')).toEqual([]);
      const warm = await answer(before, 'adult_mdoc');
      expect(warm.res.status).toBe(200);
      expect(reads(warm.read, 'mdoc_trust_anchor')).toEqual([]);

      const ski = await trustNewPidIaca(other.ds, 'Another PID IACA');
      expect(mdocQuery(before.wr)?.trusted_authorities[0].values).not.toContain(ski);
      const after = await atWalletStep();
      expect(mdocQuery(after.wr)?.trusted_authorities[0].values).toContain(ski);

      // every IACA of the docType retired through the CLI (its own process): the pending answer is refused here
      const retired = await runOperator(
        ['distrust-issuer', '--env', 'sandbox', '--doctype', MDOC_PID.doctype, '--operator', 'ops-ann'],
        operatorEnv,
      );
      expect(retired.code).toBe(0);
      const refused = await answer(after, 'adult_mdoc');
      expect(refused.res.status).toBe(422);
      expect(refused.res.body.code).toBe('issuer_untrusted');
      expect(await t.svc.ds.getRepository(StepResultEntity).countBy({ sessionId: after.id })).toBe(0);
      // and the next request no longer narrows the PID mdoc query to an anchor nobody trusts
      expect(mdocQuery((await atWalletStep()).wr)?.trusted_authorities).toBeUndefined();
    }, 120_000);
  },
);
