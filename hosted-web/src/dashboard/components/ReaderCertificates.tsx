// The reader certificates that sign this environment's ISO 18013-5 (Apple Wallet) requests, read-only (issue 26,
// ADR 0049 amendment): route, subject, expiry and days left, in the warning style within 30 days. The operator
// renews them (`pnpm operator reader-cert`); owners and admins see them, others a sentence saying so.
import { createResource, Show } from 'solid-js';
import type { ReaderCertificatesQuery, ReaderCertificatesQueryVariables } from '../../graphql/generated';
import { DashError, environment, gql, operation } from '../api';
import DOCUMENT from '../graphql/reader-certificates.graphql?raw';
import { dashLocale, dt } from '../i18n';
import { DATE_LOCALE, ErrorNote } from '../Screen';
import { DataTable } from './DataTable';

const READER_CERTS = operation<ReaderCertificatesQuery, ReaderCertificatesQueryVariables>(
  DOCUMENT,
  'ReaderCertificates',
);
type Cert = ReaderCertificatesQuery['readerCertificates'][number];

/** Days left in words; expired certificates say so. */
export function daysWords(c: Pick<Cert, 'daysLeft'>): string {
  if (c.daysLeft < 0) return dt('rc.expired');
  return c.daysLeft === 1 ? dt('rc.oneDay') : dt('rc.days', { n: String(c.daysLeft) });
}

/** The expiry day as the chosen language writes dates (English: the ISO day, as before). */
const day = (iso: string): string =>
  dashLocale() === 'en'
    ? iso.slice(0, 10)
    : new Date(iso).toLocaleDateString(DATE_LOCALE[dashLocale()], { dateStyle: 'medium', timeZone: 'UTC' });

export function ReaderCertificates() {
  const [data] = createResource(environment, () => gql(READER_CERTS));
  const denied = () => data.error instanceof DashError && data.error.code === 'role_insufficient';
  return (
    <section data-testid="reader-certs">
      <h2 id="reader-certs-heading">{dt('rc.title')}</h2>
      <p class="d-muted">{dt('rc.text')}</p>
      <Show when={denied()}>
        <p class="d-muted">{dt('rc.denied')}</p>
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
                {dt('rc.none', { in: dt(`env.in.${environment()}`) })}
              </p>
            }
          >
            <DataTable<Cert>
              labelledby="reader-certs-heading"
              rows={certs()}
              columns={[
                { header: dt('rc.col.route'), cell: (c) => c.route },
                { header: dt('rc.col.subject'), cell: (c) => c.subjectCn },
                { header: dt('rc.col.expires'), cell: (c) => day(c.notAfter) },
                {
                  header: dt('rc.col.days'),
                  cell: (c) => (
                    <span class={c.expiringSoon ? 'd-warn' : undefined} data-testid="reader-cert-days">
                      {daysWords(c)}
                      {c.expiringSoon ? dt('rc.renew') : ''}
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
