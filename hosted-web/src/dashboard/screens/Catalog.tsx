// The route catalog as the current environment sees it: which wallet and issuer routes are available here.
import { createResource } from 'solid-js';
import type { CatalogQuery, CatalogQueryVariables } from '../../graphql/generated';
import { environment, gql, operation } from '../api';
import { DataTable } from '../components/DataTable';
import DOCUMENT from '../graphql/catalog.graphql?raw';
import { dt } from '../i18n';

const CATALOG = operation<CatalogQuery, CatalogQueryVariables>(DOCUMENT, 'Catalog');

export function Catalog() {
  const [data] = createResource(environment, () => gql(CATALOG));
  return (
    <>
      <p>{dt(`catalog.intro.${environment()}`)}</p>
      <DataTable
        label={dt(`catalog.table.${environment()}`)}
        rows={data()?.catalog}
        columns={[
          { header: dt('catalog.wallet'), cell: (r) => r.wallet.name },
          {
            header: dt('catalog.issuer'),
            cell: (r) => `${r.issuer.name}${r.issuer.country ? ` (${r.issuer.country})` : ''}`,
          },
          { header: dt('catalog.formats'), cell: (r) => r.formats.join(', ') },
          {
            header: dt(`catalog.in.${environment()}`),
            cell: (r) => dt(r[environment()].available ? 'catalog.available' : 'catalog.notAvailable'),
          },
        ]}
      />
    </>
  );
}
