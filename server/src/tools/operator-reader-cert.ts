// `pnpm operator reader-cert <csr|import|list|retire>`: the reader certificates of ISO 18013-5 reader
// authentication (issue 26, ADR 0049), e.g. the one Apple issues for Verify with Wallet on the Web. The key is
// made and sealed here, the CSR goes to the ecosystem (Apple Business: "create a certificate"), and the
// certificate it returns is checked and imported for a route: every current certificate of a step's routes
// signs the Annex C readerAuthAll. Rotation: import the new one (both sign), then retire the old one.
import fs from 'node:fs';
import { AppError } from '../common/errors';
import { isEnvironment } from '../common/roles';
import type { Service } from '../service';

export const READER_CERT_USAGE = `  reader-cert csr --env <sandbox|production> [--org <organisation>] [--country <XX>] [--out <file>]
      A new P-256 reader key (sealed) and its CSR: CN and SAN dNSName = the host of HOSTED_URL.
  reader-cert import --env <sandbox|production> --route <route id> [--per-document true] <pem file>
      The certificate the ecosystem issued (leaf first, then its issuers): checked (chain, key, domain,
      validity), then it signs readerAuthAll of that route's Annex C requests (and readerAuth per document).
  reader-cert list
      Reader certificates with their expiry (days_left); /readyz warns 30 days ahead.
  reader-cert retire --id <rdc_…>
      Stops it signing (after the replacement is imported).
`;

type Flags = Record<string, string | undefined>;

function envOf(flags: Flags) {
  const e = flags.env;
  if (!isEnvironment(e))
    throw new AppError('validation_failed', '--env must be sandbox or production.', { param: 'env' });
  return e;
}

export async function readerCertCommand(
  svc: Service,
  args: string[],
  flags: Flags,
  operator: string,
): Promise<unknown> {
  const certs = svc.readerCerts;
  const audit = (action: string, target: string, detail: Record<string, unknown>) =>
    svc.accounts.members.recordOperatorAction(operator, action, target, detail);
  switch (args[0]) {
    case 'csr': {
      const csr = await certs.csr(envOf(flags), { organization: flags.org, country: flags.country });
      if (flags.out) fs.writeFileSync(flags.out, csr.pem);
      await audit('reader_cert.csr', csr.key_id, { domain: csr.domain, environment: csr.environment });
      return csr;
    }
    case 'import': {
      const file = args[1] ?? flags.pem;
      if (!file || !fs.existsSync(file))
        throw new AppError('validation_failed', 'Give the PEM file: reader-cert import … <pem file>.');
      const route = flags.route;
      if (!route) throw new AppError('validation_failed', '--route is required.', { param: 'route' });
      const perDocument = flags['per-document'];
      if (perDocument !== undefined && perDocument !== 'true' && perDocument !== 'false')
        throw new AppError('validation_failed', '--per-document must be true or false.');
      const view = await certs.import({
        pem: fs.readFileSync(file, 'utf8'),
        routeId: route,
        environment: envOf(flags),
        perDocument: perDocument === 'true',
      });
      await audit('reader_cert.import', view.id, {
        route: view.route,
        environment: view.environment,
        leaf_sha256: view.leaf_sha256,
        not_after: view.not_after,
      });
      return view;
    }
    case 'list':
      return certs.list();
    case 'retire': {
      if (!flags.id) throw new AppError('validation_failed', '--id is required.', { param: 'id' });
      const view = await certs.retire(flags.id);
      await audit('reader_cert.retire', view.id, { route: view.route, environment: view.environment });
      return view;
    }
    default:
      throw new AppError('validation_failed', 'reader-cert needs csr, import, list or retire.');
  }
}
