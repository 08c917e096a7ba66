// The reader certificates in the dashboard (issue 26, ADR 0049 amendment), as a dashboard user observes them: the
// `readerCertificates` query refuses anonymous callers, API keys and roles below admin; owners and admins see each
// current certificate of their environment (route, subject CN, not-after, days left), soonest expiry first,
// flagged when it expires within 30 days like /readyz; a retired certificate and another environment's are not shown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import {
  Api,
  createBusiness,
  type DashboardCredentials,
  startTestService,
  type TestService,
} from '../support/harness';
import { makeTestCa, type TestCa } from '../support/test-ca';

const Q = '{ readerCertificates { id route subjectCn domain notAfter daysLeft expiringSoon } }';
const DAY = 86_400_000;
/** openssl's -startdate/-enddate form: YYYYMMDDHHMMSSZ. */
const asn1Time = (ms: number) => `${new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;

describe('reader certificates in the dashboard', () => {
  const clock = new ManualClock();
  let t: TestService;
  let ca: TestCa;
  let businessId: string;
  let apiKey: string;

  const as = async (role: 'viewer' | 'developer' | 'admin', environment: 'sandbox' | 'production') => {
    const u = await t.svc.accounts.members.createUserDirect(
      businessId,
      `${role}-${environment}@rc.test`,
      role,
      'test',
    );
    const s = await t.svc.accounts.signIn.signInDirect(u.id);
    const creds: DashboardCredentials = {
      cookie: `svc_dashboard=${s.token}`,
      csrfToken: s.csrfToken,
      environment,
    };
    return new Api(t.baseUrl, undefined, creds);
  };

  beforeAll(async () => {
    t = await startTestService({ label: 'reader_certs_dash', clock, workers: false });
    ({ businessId, apiKey } = await createBusiness(t));
    ca = makeTestCa('Test Reader CA');
  });
  afterAll(async () => {
    ca?.remove();
    await t?.stop();
  });

  it('refuses anonymous callers, API keys, viewers and developers', async () => {
    const anonymous = await new Api(t.baseUrl, undefined, null).gql(Q);
    expect(anonymous.data?.readerCertificates).toBeUndefined();
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('unauthenticated');
    const key = await new Api(t.baseUrl, apiKey, null).gql(Q);
    expect(key.errors?.[0]?.extensions?.code).toBe('dashboard_user_required');
    for (const role of ['viewer', 'developer'] as const) {
      const r = await (await as(role, 'sandbox')).gql(Q);
      expect(r.errors?.[0]?.extensions?.code).toBe('role_insufficient');
    }
  });

  it('shows an imported certificate with its days left, the one expiring within 30 days flagged', async () => {
    const admin = await as('admin', 'sandbox');
    expect((await admin.gql(Q)).data?.readerCertificates).toEqual([]);
    const base = Date.now() - 60_000;
    const csr = await t.svc.readerCerts.csr('sandbox');
    const chain = (leaf: string) => leaf + ca.intermediatePem + ca.rootPem;
    const long = ca.issue(csr.pem, { startdate: asn1Time(base), enddate: asn1Time(base + 40 * DAY) });
    const soon = ca.issue(csr.pem, { startdate: asn1Time(base), enddate: asn1Time(base + 20 * DAY) });
    const gone = ca.issue(csr.pem, { startdate: asn1Time(base), enddate: asn1Time(base + 10 * DAY) });
    clock.set(Date.now() + 2000);
    const routeId = 'rte_sandbox_reference';
    const a = await t.svc.readerCerts.import({ pem: chain(long), routeId, environment: 'sandbox' });
    const b = await t.svc.readerCerts.import({ pem: chain(soon), routeId, environment: 'sandbox' });
    const c = await t.svc.readerCerts.import({ pem: chain(gone), routeId, environment: 'sandbox' });
    await t.svc.readerCerts.retire(c.id);
    const shown = (await admin.gql(Q)).data?.readerCertificates;
    expect(shown).toEqual([
      {
        id: b.id,
        route: routeId,
        subjectCn: '127.0.0.1',
        domain: '127.0.0.1',
        notAfter: b.not_after,
        daysLeft: 19,
        expiringSoon: true,
      },
      {
        id: a.id,
        route: routeId,
        subjectCn: '127.0.0.1',
        domain: '127.0.0.1',
        notAfter: a.not_after,
        daysLeft: 39,
        expiringSoon: false,
      },
    ]);
    expect(new Date(b.not_after).getTime()).toBe(Math.floor((base + 20 * DAY) / 1000) * 1000);
    // the owner sees the same; the production environment has none
    expect((await new Api(t.baseUrl, apiKey).gql(Q)).data?.readerCertificates).toEqual(shown);
    const prod = await (await as('admin', 'production')).gql(Q);
    expect(prod.errors).toBeUndefined();
    expect(prod.data?.readerCertificates).toEqual([]);
    // /readyz warns about the same certificate the dashboard flags
    const ready = await new Api(t.baseUrl).rest('GET', '/readyz');
    expect(ready.body.warnings).toEqual([expect.stringContaining(`reader_cert_expiring: ${b.id}`)]);
  });
});
