// A new PID IACA trusted on the sandbox route through a given node's store (another service on the same
// database): what a trust change made elsewhere looks like to the node under test (ADR 0063, ADR 0067).
import { SANDBOX_ROUTE_ID } from '../../server/src/modules/catalog/catalog.seed';
import { MDOC_PID } from '../../server/src/modules/verification/mdoc/mdoc-query';
import { MdocTrustStore } from '../../server/src/modules/verification/mdoc/mdoc-trust';
import { skiOf } from '../../server/src/modules/verification/trusted-authorities';
import { rootCa } from '../../server/src/modules/verification/x509-test-pki';

/** Makes an IACA named `name` (valid from a day ago for a year) and trusts it for the PID mdoc: its SKI. */
export async function trustNewPidIaca(
  ds: ConstructorParameters<typeof MdocTrustStore>[0],
  name: string,
): Promise<string | undefined> {
  const now = Date.now();
  const iaca = await rootCa(name, {
    notBefore: new Date(now - 86_400_000),
    notAfter: new Date(now + 365 * 86_400_000),
  });
  const pem = iaca.cert.toString('pem');
  await new MdocTrustStore(ds).register({
    environment: 'sandbox',
    routeId: SANDBOX_ROUTE_ID,
    doctypes: [MDOC_PID.doctype],
    name,
    certificatePem: pem,
    now: new Date(),
  });
  return skiOf(pem);
}
