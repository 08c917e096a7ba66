// The reader certificates that sign this environment's ISO 18013-5 (Apple Wallet) requests, read-only (issue 26,
// ADR 0049 amendment): route, subject, expiry and days left, in the warning style within 30 days. The operator
// renews them (`pnpm operator reader-cert`); owners and admins see them, others a sentence saying so.
import { createResource, Show } from 'solid-js';
import type { ReaderCertificatesQuery, ReaderCertificatesQueryVariables } from '../../graphql/generated';
import { DashError, environment, gql, operation } from '../api';
import DOCUMENT from '../graphql/reader-certificates.graphql?raw';
import { ErrorNote } from '../Screen';
import { DataTable } from './DataTable';

const READER_CERTS = operation<ReaderCertificatesQuery, ReaderCertificatesQueryVariables>(
  DOCUMENT,
  'ReaderCertificates',
);
type Cert = ReaderCertificatesQuery['readerCertificates'][number];

/** Days left in words; expired certificates say so. */
export function daysWords(c: Pick<Cert, 'daysLeft'>): string {
  if (c.daysLeft < 0) return 'Expired';
  return c.daysLeft === 1 ? '1 day' : `${c.daysLeft} days`;
}

export function ReaderCertificates() {
  const [data] = createResource(environment, () => gql(READER_CERTS));
  const denied = () => data.error instanceof DashError && data.error.code === 'role_insufficient';
  return (
    <section data-testid="reader-certs">
      <h2 id="reader-certs-heading">Reader certificates</h2>
      <p class="d-muted">
        Apple Wallet and other wallets that require reader authentication accept a request only when it is
        signed with a current reader certificate of the route. Your operator renews them.
      </p>
      <Show when={denied()}>
        <p class="d-muted">Only owners and admins see the reader certificates.</p>
      </Show>
      <Show when={data.error && !denied()}>
        <ErrorNote error={data.error} />
      </Show>
      {/* data() throws once the query failed (the screen's error boundary): read it only when it did not */}
      <Show when={!data.error && data()?.readerCertificates}>
        {(certs) => (
          <Show
            when={certs().length > 0}
            fallback={
              <p class="d-note" data-testid="reader-certs-empty">
                No reader certificates in {environment()}: requests are not reader-signed, so Apple Wallet
                does not answer them yet.
              </p>
            }
          >
            <DataTable<Cert>
              labelledby="reader-certs-heading"
              rows={certs()}
              columns={[
                { header: 'Route', cell: (c) => c.route },
                { header: 'Subject', cell: (c) => c.subjectCn },
                { header: 'Expires', cell: (c) => c.notAfter.slice(0, 10) },
                {
                  header: 'Days left',
                  cell: (c) => (
                    <span class={c.expiringSoon ? 'd-warn' : undefined} data-testid="reader-cert-days">
                      {daysWords(c)}
                      {c.expiringSoon ? ' — renew soon' : ''}
                    </span>
                  ),
                },
              ]}
            />
          </Show>
        )}
      </Show>
    </section>
  );
}
