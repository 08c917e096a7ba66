// `pnpm operator verifier-key <create|csr|import-chain|list>`: the verifier's access certificates from a real
// CA (issue 19, ADR 0034). The key is made and sealed here, the CSR is handed to the CA, and the chain the CA
// returns is checked and becomes the one requests are signed under (the previous one is kept, retired).
import fs from 'node:fs';
import { AppError } from '../common/errors';
import type { Environment } from '../config/config';
import type { Service } from '../service';

export const VERIFIER_KEY_USAGE = `  verifier-key create
      A new P-256 access key for the host of HOSTED_URL (sealed under the master key).
  verifier-key csr [--key <key id>] [--out <file>]
      The PKCS#10 CSR of that key (default: the newest), SAN dNSName = the host of HOSTED_URL.
  verifier-key import-chain <pem file> (or --pem <pem file>)
      Leaf, intermediates and root as issued by the CA; checked, then requests are signed under it.
  verifier-key list
      Access keys and chains (current and retired).
  registrar rotate
      Registrar mode (ADR 0034): a new registrar CA (the first one turns it on); each business gets its own
      leaf under it on its next request. Prints the CA certificate to register with wallets.
  registrar revoke --business <business id> --env <sandbox|production>
      Retires that business's leaf; its next request gets a new one.
  registration-cert import --business <business id> --env <sandbox|production> <file>
      A registration certificate (rc-wrp+jwt) a registrar issued for the business (ADR 0040): checked against
      REGISTRATION_CERT_ANCHORS_FILE, then sent in verifier_info (production: with VERIFIER_INFO_PRODUCTION=true).
  registration-cert list [--business <business id>]
      Imported registration certificates (current and revoked).
  registration-cert revoke --business <business id> --env <sandbox|production>
      Revokes the current one; requests stop carrying it at once.
`;

type Flags = Record<string, string | undefined>;

export async function verifierKeyCommand(
  svc: Service,
  args: string[],
  flags: Flags,
  operator: string,
): Promise<unknown> {
  const certs = svc.verifierIdentity.accessCertificates;
  const [sub, file] = args;
  switch (sub) {
    case 'create': {
      const key = await certs.createKey();
      await svc.accounts.members.recordOperatorAction(operator, 'verifier_key.create', key.key_id, {
        host: key.host,
      });
      return key;
    }
    case 'csr': {
      const csr = await certs.csr(flags.key);
      if (flags.out) fs.writeFileSync(flags.out, csr.pem);
      return csr;
    }
    case 'import-chain': {
      const path = file ?? flags.pem;
      if (!path || !fs.existsSync(path))
        throw new AppError('validation_failed', 'Give the PEM file: verifier-key import-chain <pem file>.');
      return certs.importChain(fs.readFileSync(path, 'utf8'), (m, chain) =>
        svc.accounts.members.audit(m, {
          businessId: null,
          actor: { kind: 'operator', id: operator },
          action: 'verifier_key.import_chain',
          target: chain.id,
          detail: { key_id: chain.key_id, host: chain.host, leaf_sha256: chain.leaf_sha256 },
        }),
      );
    }
    case 'list':
      return certs.list();
    default:
      throw new AppError('validation_failed', 'verifier-key needs create, csr, import-chain or list.');
  }
}

export async function registrarCommand(
  svc: Service,
  args: string[],
  flags: Flags,
  operator: string,
): Promise<unknown> {
  const registrar = svc.verifierIdentity.registrar;
  switch (args[0]) {
    case 'rotate': {
      const ca = await registrar.rotateCa();
      await svc.accounts.members.recordOperatorAction(operator, 'registrar.rotate', ca.id, {
        subject: ca.subject,
      });
      return ca;
    }
    case 'revoke': {
      const business = flags.business;
      const environment = flags.env;
      if (!business || (environment !== 'sandbox' && environment !== 'production'))
        throw new AppError(
          'validation_failed',
          'registrar revoke needs --business and --env sandbox|production.',
        );
      const retired = await registrar.revokeLeaf(business, environment);
      if (retired === 0)
        throw new AppError('not_found', 'That business has no current leaf in this environment.');
      await svc.accounts.members.recordOperatorAction(operator, 'registrar.revoke', business, {
        environment,
      });
      return { retired, business, environment };
    }
    default:
      throw new AppError('validation_failed', 'registrar needs rotate or revoke.');
  }
}

function businessEnv(flags: Flags, command: string): { business: string; environment: Environment } {
  const business = flags.business;
  const environment = flags.env;
  if (!business || (environment !== 'sandbox' && environment !== 'production'))
    throw new AppError('validation_failed', `${command} needs --business and --env sandbox|production.`);
  return { business, environment };
}

export async function registrationCertCommand(
  svc: Service,
  args: string[],
  flags: Flags,
  operator: string,
): Promise<unknown> {
  const certs = svc.registrationCerts;
  const actor = { kind: 'operator' as const, id: operator };
  switch (args[0]) {
    case 'import': {
      const { business, environment } = businessEnv(flags, 'registration-cert import');
      const file = args[1];
      if (!file || !fs.existsSync(file))
        throw new AppError('validation_failed', 'Give the file: registration-cert import … <file>.');
      return certs.import(business, environment, fs.readFileSync(file, 'utf8'), (m, row) =>
        svc.accounts.members.audit(m, {
          businessId: business,
          actor,
          action: 'registration_cert.import',
          target: row.id,
          detail: { environment, sub: row.sub, name: row.name, expires_at: row.expires_at },
        }),
      );
    }
    case 'list':
      return certs.list(flags.business);
    case 'revoke': {
      const { business, environment } = businessEnv(flags, 'registration-cert revoke');
      return certs.revoke(business, environment, (m, ids) =>
        svc.accounts.members.audit(m, {
          businessId: business,
          actor,
          action: 'registration_cert.revoke',
          target: ids[0] ?? null,
          detail: { environment, revoked: ids },
        }),
      );
    }
    default:
      throw new AppError('validation_failed', 'registration-cert needs import, list or revoke.');
  }
}
