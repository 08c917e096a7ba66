// The route catalog as the current environment sees it: which wallet and issuer routes are available here.
import { createResource } from 'solid-js';
import type { CatalogQuery, CatalogQueryVariables } from '../../graphql/generated';
import { environment, gql, operation } from '../api';
import { DataTable } from '../components/DataTable';
import DOCUMENT from '../graphql/catalog.graphql?raw';

const CATALOG = operation<CatalogQuery, CatalogQueryVariables>(DOCUMENT, 'Catalog');

export function Catalog() {
  const [data] = createResource(environment, () => gql(CATALOG));
  return (
    <>
      <p>Credential routes and whether they are available in {environment()}.</p>
      <DataTable
        label={`Routes in ${environment()}`}
        rows={data()?.catalog}
        columns={[
          { header: 'Wallet', cell: (r) => r.wallet.name },
          {
            header: 'Issuer',
            cell: (r) => `${r.issuer.name}${r.issuer.country ? ` (${r.issuer.country})` : ''}`,
          },
          { header: 'Formats', cell: (r) => r.formats.join(', ') },
          {
            header: `In ${environment()}`,
            cell: (r) => (r[environment()].available ? 'Available' : 'Not available'),
          },
        ]}
      />
    </>
  );
}
