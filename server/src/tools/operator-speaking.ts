// How the service speaks for a business (issue 26, ADR 0053): `set-route --speaking` per route and environment,
// and `business-cert csr|import` for a business's own access certificate (the business-certificate mode).
// Every change is audited in the same transaction as the change.
import fs from 'node:fs';
import { AppError } from '../common/errors';
import { setSpeaking } from '../modules/relying-party/speaking';
import type { Service } from '../service';

export const SPEAKING_USAGE = `  set-route --route <route id> --env <sandbox|production> --speaking <intermediary|business-certificate|default>
      How we speak for a business on the route (ADR 0053): intermediary (our access certificate signs, the
      business's registration certificate in verifier_info); business-certificate (the business's own access
      certificate signs, no intermediary); default (ADR 0034/0040).
  business-cert csr --business <id> --env <env> [--out <file>]
      A P-256 key for the business and its CSR (CN = the business's name), for the business's CA.
  business-cert import --business <id> --env <env> --pem <chain file>
      The chain the business's CA issued (leaf, intermediates, root), with the access-certificate checks.
`;

type Flags = Record<string, string | undefined>;

const need = (flags: Flags, name: string): string => {
  const v = flags[name];
  if (!v) throw new AppError('validation_failed', `Give --${name}.`, { param: name });
  return v;
};

export async function setRouteSpeaking(svc: Service, flags: Flags, operator: string) {
  const route = need(flags, 'route');
  const environment = need(flags, 'env');
  const mode = need(flags, 'speaking');
  return setSpeaking(svc.ds, svc.clock, { route, environment, mode }, (m) =>
    svc.accounts.members.audit(m, {
      businessId: null,
      actor: { kind: 'operator', id: operator },
      action: 'route.speaking',
      target: route,
      detail: { environment, speaking: mode },
    }),
  );
}

export async function businessCertCommand(
  svc: Service,
  args: string[],
  flags: Flags,
  operator: string,
): Promise<unknown> {
  const certs = svc.verifierIdentity.businessCertificates;
  const business = need(flags, 'business');
  const environment = need(flags, 'env');
  switch (args[0]) {
    case 'csr': {
      const out = await certs.csr(business, environment);
      await svc.accounts.members.recordOperatorAction(operator, 'business_cert.csr', business, {
        environment,
        key_id: out.key_id,
      });
      if (flags.out) fs.writeFileSync(flags.out, out.pem);
      return flags.out ? { key_id: out.key_id, out: flags.out } : out;
    }
    case 'import': {
      const file = need(flags, 'pem');
      if (!fs.existsSync(file)) throw new AppError('validation_failed', `No file ${file}.`, { param: 'pem' });
      return certs.importChain(business, environment, fs.readFileSync(file, 'utf8'), (m, view) =>
        svc.accounts.members.audit(m, {
          businessId: business,
          actor: { kind: 'operator', id: operator },
          action: 'business_cert.import',
          target: String(view.id),
          detail: view,
        }),
      );
    }
    default:
      throw new AppError('validation_failed', 'business-cert needs csr or import.');
  }
}
