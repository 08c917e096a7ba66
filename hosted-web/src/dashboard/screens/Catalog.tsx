// The route catalog as the current environment sees it: which wallet and issuer routes are available here.
import { createResource, For } from 'solid-js';
import { environment, gql } from '../api';
import { CATALOG, type CatalogData } from '../queries';

export function Catalog() {
  const [data] = createResource(environment, () => gql<CatalogData>(CATALOG));
  return (
    <>
      <p>Credential routes and whether they are available in {environment()}.</p>
      <div class="d-table-wrap">
        <table aria-label={`Routes in ${environment()}`}>
          <thead>
            <tr>
              <th scope="col">Wallet</th>
              <th scope="col">Issuer</th>
              <th scope="col">Formats</th>
              <th scope="col">In {environment()}</th>
            </tr>
          </thead>
          <tbody>
            <For each={data()?.catalog}>
              {(r) => (
                <tr>
                  <td>{r.wallet.name}</td>
                  <td>
                    {r.issuer.name}
                    {r.issuer.country ? ` (${r.issuer.country})` : ''}
                  </td>
                  <td>{r.formats.join(', ')}</td>
                  <td>{r[environment()].available ? 'Available' : 'Not available'}</td>
                </tr>
              )}
            </For>
          </tbody>
        </table>
      </div>
    </>
  );
}
