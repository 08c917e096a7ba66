// The independent test wallet (test/support/independent-wallet: jose, @hpke/core, its own CBOR/COSE, DCQL
// matching and transaction-data reading; no library of the verifier) completes every primitive in both formats
// over every transport the service offers: the unsigned DC API request (openid4vp-v1-unsigned, dc_api), the
// signed one (openid4vp-v1-signed, dc_api.jwt), cross-device (request_uri, direct_post.jwt) and, for identify
// and age_verify with an mdoc, ISO 18013-7 Annex C (org-iso-mdoc). Each combination is one fresh session over
// real HTTP; the test asserts what the business sees (GET /v1/sessions, the audit record, the step.completed
// webhook event) and what the wallet's user was shown (the documents and terms in transaction_data).
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import type { Json } from '../support/harness';
import { checkRequestObject } from '../support/independent-wallet/cross-device';
import { readTransactionData } from '../support/independent-wallet/transaction-data';
import type { WalletFormat } from '../support/independent-wallet/wallet';
import {
  IndependentWalletFixture,
  PDF_SHA256,
  type Primitive,
  TERMS,
  type Transport,
} from '../support/independent-wallet-fixture';

const PROTOCOL: Record<Transport, string> = {
  dc_api: 'openid4vp-v1-unsigned',
  dc_api_signed: 'openid4vp-v1-signed',
  cross_device: 'openid4vp-cross-device',
  org_iso_mdoc: 'org-iso-mdoc',
};

interface Combination {
  primitive: Primitive;
  format: WalletFormat;
  transport: Transport;
}
const combinations: Combination[] = [];
for (const primitive of ['identify', 'age_verify', 'sign', 'attestation'] as const)
  for (const format of ['dc+sd-jwt', 'mso_mdoc'] as const)
    for (const transport of ['dc_api', 'dc_api_signed', 'cross_device', 'org_iso_mdoc'] as const) {
      // Annex C carries mdocs only, and no transaction data (the catalog says so: primitive_protocols)
      if (
        transport === 'org_iso_mdoc' &&
        (format !== 'mso_mdoc' || primitive === 'sign' || primitive === 'attestation')
      )
        continue;
      combinations.push({ primitive, format, transport });
    }

const expectedResult: Record<Primitive, Json> = {
  identify: { claims: { given_name: 'Erika', family_name: 'Mustermann' } },
  age_verify: { over: true, threshold: 18 },
  sign: { documents: [{ sha256: PDF_SHA256 }] },
  attestation: { terms_sha256: createHash('sha256').update(TERMS, 'utf8').digest('hex') },
};

describe('the independent wallet completes every primitive, format and transport the service offers', () => {
  const clock = new ManualClock();
  const f = new IndependentWalletFixture(clock);
  beforeAll(() => f.start('independent_wallet'));
  afterAll(() => f.stop());

  it('covers 26 combinations', () => {
    expect(combinations).toHaveLength(26);
  });

  it.each(combinations)('$primitive in $format over $transport', async ({ primitive, format, transport }) => {
    const ctx = await f.newSession(primitive);
    const req = await f.request(ctx, transport);
    // What the wallet's user is shown for sign and attestation: the transaction data it read itself.
    if (primitive === 'sign' || primitive === 'attestation') {
      const params =
        transport === 'dc_api'
          ? req.body.request
          : transport === 'dc_api_signed'
            ? await checkRequestObject(req.body.request.request, f.rootPem)
            : undefined;
      if (params) {
        const ids = (params.dcql_query as { credentials: { id: string }[] }).credentials.map((c) => c.id);
        const [td] = readTransactionData(params, ids);
        if (primitive === 'sign') expect(td?.documents?.[0]?.sha256).toBe(PDF_SHA256);
        else expect(td?.terms).toBe(TERMS);
      }
    }
    const res = await f.answer(ctx, transport, format, req);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 200, code: undefined });

    const read = await f.api.rest('GET', `/v1/sessions/${ctx.id}`);
    expect(read.body.status).toBe('completed');
    expect(read.body.results).toHaveLength(1);
    expect(read.body.results[0]).toMatchObject(expectedResult[primitive]);
    const audit = await f.api.rest('GET', `/v1/audits/${ctx.id}_0`);
    expect(audit.status).toBe(200);
    const auditText = JSON.stringify(audit.body);
    expect(auditText).toContain(`"protocol":"${PROTOCOL[transport]}"`);
    expect(auditText).toContain(`"format":"${format}"`);
    const events = await f.stepCompletedEvents(ctx.id);
    expect(events).toHaveLength(1);
    // the webhook the business receives carries the same result
    expect(events[0]?.data).toMatchObject({
      session_id: ctx.id,
      stage: 0,
      primitive,
      audit_id: `${ctx.id}_0`,
      ...expectedResult[primitive],
    });
  });
});
