// `pnpm operator <command>`: the tooling of the people who run the service. It builds the same service graph
// as the server (same config from the environment, same database, same services) without listening, runs one
// command, and leaves an operator entry in account_audit for every change. Output is JSON on stdout.
import 'reflect-metadata';
import { createHash, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { IsNull } from 'typeorm';
import { AppError } from '../common/errors';
import { newId } from '../common/ids';
import { isEnvironment } from '../common/roles';
import { loadOperatorConfig } from '../config/service-urls';
import { transactionWithRetry } from '../db/data-source';
import { KmsKeyVersionEntity } from '../modules/kms/kms-key-version.entity';
import { LocalKmsProvider } from '../modules/kms/local-kms.provider';
import { loadMasterKey } from '../modules/kms/master-key';
import { MdocTrustStore } from '../modules/verification/mdoc/mdoc-trust';
import { MdocTrustAnchorEntity } from '../modules/verification/mdoc/mdoc-trust-anchor.entity';
import { requireRoute } from '../modules/verification/trust';
import { TrustAnchorEntity } from '../modules/verification/trust-anchor.entity';
import { bumpTrustVersion } from '../modules/verification/trust-version';
import { TrustedIssuerEntity } from '../modules/verification/trusted-issuer.entity';
import { createService, type Service } from '../service';
import { GOOGLE_USAGE, googleMetadataCommand } from './operator-google';
import { READER_CERT_USAGE, readerCertCommand } from './operator-reader-cert';
import { businessCertCommand, SPEAKING_USAGE, setRouteSpeaking } from './operator-speaking';
import { isTrustCommand, runTrustCommand, TRUST_USAGE } from './operator-trust';
import {
  registrarCommand,
  registrationCertCommand,
  VERIFIER_KEY_USAGE,
  verifierKeyCommand,
} from './operator-verifier-key';

const USAGE = `Usage: pnpm operator <command> [options]   (every command takes --operator <your name>, default $USER)
Links use BASE_URL, else the base URL the service sharing DATA_DIR recorded when it started; neither: refused.

  create-business --name <name> --owner-email <email>
      A business and the invitation of its first owner (mailed; the link is printed too).
  trust-issuer --env <sandbox|production> --route <route id> --name <label>   (trust belongs to a route)
      (--issuer <iss> --jwk <file|json>)        SD-JWT VC issuer by public key
    | (--issuer <iss> --anchor <pem file>)      SD-JWT VC issuer by X.509 anchor
    | (--doctype <doctype> --iaca <pem file>)   mdoc issuer (IACA) for a document type
  distrust-issuer --env <sandbox|production> (--issuer <iss> | --doctype <doctype>)
      Retires every key and anchor of that issuer (or doctype) in the environment.
  set-route --route <route id> [--provider true|false] [--issuer-accepted true|false] [--service true|false]
            [--x5c-leaf-only true|false]
      Records a route's production acceptances (production availability needs all three); --x5c-leaf-only:
      our signed requests for the route carry only the leaf in x5c (Germany's rule, ADR 0050).
  rotate-audit-key
      A new audit signing key version; the previous one stays in the public key set.
  rotate-receipt-seal-key
      A new receipt seal key version; the previous one stays published, so receipts it sealed still verify.
  list-keys
      Audit/evidence KMS key versions and the trusted issuer keys and anchors.
  audit-log [--limit <n>]
      The latest operator actions.
${TRUST_USAGE}
${VERIFIER_KEY_USAGE}${GOOGLE_USAGE}${READER_CERT_USAGE}${SPEAKING_USAGE}`;

type Flags = Record<string, string | undefined>;

function need(flags: Flags, name: string): string {
  const v = flags[name];
  if (!v) throw new AppError('validation_failed', `--${name} is required.`, { param: name });
  return v;
}

function env(flags: Flags) {
  const e = need(flags, 'env');
  if (!isEnvironment(e)) throw new AppError('validation_failed', '--env must be sandbox or production.');
  return e;
}

const readArg = (v: string): string => (fs.existsSync(v) ? fs.readFileSync(v, 'utf8') : v);

const bool = (flags: Flags, name: string): boolean | undefined => {
  const v = flags[name];
  if (v === undefined) return undefined;
  if (v !== 'true' && v !== 'false')
    throw new AppError('validation_failed', `--${name} must be true or false.`);
  return v === 'true';
};

async function run(
  svc: Service,
  command: string,
  flags: Flags,
  operator: string,
  args: string[] = [],
): Promise<unknown> {
  const now = svc.clock.now();
  const audit = (action: string, target: string | null, detail?: Record<string, unknown>) =>
    svc.accounts.members.recordOperatorAction(operator, action, target, detail);
  switch (command) {
    case 'create-business': {
      const out = await svc.accounts.invitations.createBusinessWithOwner(
        need(flags, 'name'),
        need(flags, 'owner-email'),
        operator,
      );
      return {
        business_id: out.businessId,
        invitation_id: out.invitationId,
        invitation_link: out.link,
        expires: out.expiresAt.toISOString(),
      };
    }
    case 'trust-issuer': {
      const environment = env(flags);
      const name = need(flags, 'name');
      const routeId = need(flags, 'route');
      await requireRoute(svc.ds, routeId);
      // trusting an issuer in the sandbox turns its route on there (seeded off, ADR 0053)
      const opened = async <T extends object>(out: T) => {
        if (environment !== 'sandbox') return out;
        await svc.catalog.openInSandbox(routeId);
        await audit('route.sandbox_available', routeId, { sandbox_available: true, by: 'trust-issuer' });
        return { ...out, sandbox_available: true };
      };
      if (flags.doctype) {
        const pem = readArg(need(flags, 'iaca'));
        new X509Certificate(pem); // refuse garbage before writing
        await new MdocTrustStore(svc.ds).register({
          environment,
          routeId,
          doctypes: [flags.doctype],
          name,
          certificatePem: pem,
          now,
        });
        await audit('trust.mdoc_iaca', flags.doctype, { environment, name, route: routeId });
        return opened({ trusted: 'mdoc_iaca', doctype: flags.doctype, environment, route: routeId });
      }
      const issuer = need(flags, 'issuer');
      if (flags.jwk) {
        const jwk = JSON.parse(readArg(flags.jwk)) as Record<string, unknown>;
        if (typeof jwk.kty !== 'string' || 'd' in jwk)
          throw new AppError('validation_failed', '--jwk must be a public JWK.');
        const id = newId('tri');
        await transactionWithRetry(svc.ds, async (m) => {
          await bumpTrustVersion(m); // every node's cached trust is stale from this commit on (ADR 0063)
          await m.getRepository(TrustedIssuerEntity).insert({
            id,
            issuer,
            environment,
            routeId,
            name,
            publicJwk: JSON.stringify(jwk),
            createdAt: now,
            retiredAt: null,
          });
          await svc.accounts.members.audit(m, {
            businessId: null,
            actor: { kind: 'operator', id: operator },
            action: 'trust.issuer_key',
            target: issuer,
            detail: { environment, id, route: routeId },
          });
        });
        return opened({ trusted: 'issuer_key', id, issuer, environment, route: routeId });
      }
      const pem = readArg(need(flags, 'anchor'));
      const cert = new X509Certificate(pem);
      const id = newId('tra');
      await transactionWithRetry(svc.ds, async (m) => {
        await bumpTrustVersion(m); // every node's cached trust is stale from this commit on (ADR 0063)
        await m.getRepository(TrustAnchorEntity).insert({
          id,
          issuer,
          environment,
          routeId,
          trustListId: null,
          entity: null,
          name,
          certificate: cert.toString(),
          fingerprint: createHash('sha256').update(cert.raw).digest('hex'),
          notAfter: new Date(cert.validTo),
          createdAt: now,
          retiredAt: null,
        });
        await svc.accounts.members.audit(m, {
          businessId: null,
          actor: { kind: 'operator', id: operator },
          action: 'trust.issuer_anchor',
          target: issuer,
          detail: { environment, id, route: routeId },
        });
      });
      return opened({ trusted: 'issuer_anchor', id, issuer, environment, route: routeId });
    }
    case 'distrust-issuer': {
      const environment = env(flags);
      let retired = 0;
      await transactionWithRetry(svc.ds, async (m) => {
        // a retirement counts on every node from this commit on, cached trust included (ADR 0063)
        await bumpTrustVersion(m);
        if (flags.doctype) {
          retired +=
            (
              await m
                .getRepository(MdocTrustAnchorEntity)
                .update({ environment, doctype: flags.doctype, retiredAt: IsNull() }, { retiredAt: now })
            ).affected ?? 0;
        } else {
          const issuer = need(flags, 'issuer');
          retired +=
            (
              await m
                .getRepository(TrustedIssuerEntity)
                .update({ environment, issuer, retiredAt: IsNull() }, { retiredAt: now })
            ).affected ?? 0;
          retired +=
            (
              await m
                .getRepository(TrustAnchorEntity)
                .update({ environment, issuer, retiredAt: IsNull() }, { retiredAt: now })
            ).affected ?? 0;
        }
        if (retired === 0) throw new AppError('not_found', 'Nothing trusted matches in this environment.');
        await svc.accounts.members.audit(m, {
          businessId: null,
          actor: { kind: 'operator', id: operator },
          action: 'trust.retire',
          target: flags.doctype ?? flags.issuer ?? null,
          detail: { environment, retired },
        });
      });
      return { retired, environment };
    }
    case 'set-route': {
      // how we speak for a business on the route, per environment (ADR 0053)
      if (flags.speaking !== undefined) return setRouteSpeaking(svc, flags, operator);
      const route = need(flags, 'route');
      const acceptance = {
        provider: bool(flags, 'provider'),
        issuer: bool(flags, 'issuer-accepted'),
        service: bool(flags, 'service'),
      };
      const clean = Object.fromEntries(Object.entries(acceptance).filter(([, v]) => v !== undefined));
      const leafOnly = bool(flags, 'x5c-leaf-only');
      if (leafOnly !== undefined) {
        await svc.catalog.setX5cLeafOnly(route, leafOnly);
        await audit('route.x5c_leaf_only', route, { x5c_leaf_only: leafOnly });
      }
      const view = await svc.catalog.setAcceptance(route, clean);
      await audit('route.acceptance', route, clean);
      return leafOnly === undefined ? view : { ...view, x5c_leaf_only: leafOnly };
    }
    case 'rotate-audit-key':
    case 'rotate-receipt-seal-key': {
      const kms = new LocalKmsProvider({
        ds: svc.ds,
        keyRing: svc.config.kmsKeyRing,
        masterKey: await loadMasterKey({ config: svc.config, ds: svc.ds }),
        clock: svc.clock,
      });
      // The previous version stays in the published key set (retained): receipts it sealed keep verifying.
      const purpose = command === 'rotate-audit-key' ? 'audit-signing' : 'receipt-seal';
      const kid = await kms.rotate(purpose);
      await audit('kms.rotate', kid, { purpose });
      return { kid };
    }
    case 'list-keys': {
      const kms = await svc.ds.getRepository(KmsKeyVersionEntity).find({
        select: { kid: true, purpose: true, state: true, createdAt: true },
        order: { createdAt: 'ASC' },
      });
      const issuers = await svc.ds.getRepository(TrustedIssuerEntity).find({ order: { createdAt: 'ASC' } });
      const anchors = await svc.ds.getRepository(TrustAnchorEntity).find({ order: { createdAt: 'ASC' } });
      const mdoc = await svc.ds.getRepository(MdocTrustAnchorEntity).find({ order: { createdAt: 'ASC' } });
      return {
        kms: kms.map((k) => ({
          kid: k.kid,
          purpose: k.purpose,
          state: k.state,
          created: k.createdAt.toISOString(),
        })),
        issuer_keys: issuers.map((i) => ({
          id: i.id,
          issuer: i.issuer,
          environment: i.environment,
          route: i.routeId,
          name: i.name,
          retired: i.retiredAt?.toISOString() ?? null,
        })),
        issuer_anchors: anchors.map((a) => ({
          id: a.id,
          issuer: a.issuer,
          environment: a.environment,
          route: a.routeId,
          trust_list: a.trustListId,
          entity: a.entity,
          name: a.name,
          fingerprint: a.fingerprint,
          retired: a.retiredAt?.toISOString() ?? null,
        })),
        mdoc_iacas: mdoc.map((a) => ({
          id: a.id,
          doctype: a.doctype,
          environment: a.environment,
          route: a.routeId,
          name: a.name,
          retired: a.retiredAt?.toISOString() ?? null,
        })),
      };
    }
    case 'audit-log': {
      const rows = await svc.accounts.members.operatorAudit(Number(flags.limit ?? 50) || 50);
      return rows.map((r) => ({
        at: r.createdAt.toISOString(),
        operator: r.actorId,
        action: r.action,
        target: r.target,
        detail: r.detail ? JSON.parse(r.detail) : null,
      }));
    }
    case 'verifier-key':
      return verifierKeyCommand(svc, args, flags, operator);
    case 'registrar':
      return registrarCommand(svc, args, flags, operator);
    case 'registration-cert':
      return registrationCertCommand(svc, args, flags, operator);
    case 'google-metadata':
      return googleMetadataCommand(svc, args, flags, operator);
    case 'reader-cert':
      return readerCertCommand(svc, args, flags, operator);
    case 'business-cert':
      return businessCertCommand(svc, args, flags, operator);
    default:
      throw new AppError('validation_failed', `Unknown command ${command}.`);
  }
}

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2).filter((a) => a !== '--');
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    strict: false,
    allowPositionals: true,
    options: Object.fromEntries(
      [
        'operator',
        'name',
        'owner-email',
        'env',
        'issuer',
        'jwk',
        'anchor',
        'doctype',
        'iaca',
        'route',
        'provider',
        'issuer-accepted',
        'service',
        'limit',
        'kind',
        'source',
        'list',
        'all',
        'key',
        'pem',
        'out',
        'business',
        'x5c-leaf-only',
        'cert',
        'metadata',
        'org',
        'country',
        'per-document',
        'id',
        'speaking',
      ].map((k) => [k, { type: 'string' as const }]),
    ),
  });
  const flags = values as Flags;
  const operator = flags.operator ?? process.env.USER ?? '';
  if (!operator) throw new AppError('validation_failed', 'Say who you are: --operator <name>.');
  // the service's own base URL (BASE_URL, or the one it recorded in DATA_DIR), never a guess (ADR 0051)
  const { config, warnings } = loadOperatorConfig(process.env);
  for (const w of warnings) process.stderr.write(`operator: ${w}\n`);
  const svc = await createService(config, { workers: false });
  try {
    if (isTrustCommand(command)) {
      const out = await runTrustCommand(svc, command, positionals, flags, operator);
      if (out.text) process.stdout.write(`${out.text}\n`);
      process.stdout.write(`${JSON.stringify(out.json, null, 2)}\n`);
      return 0;
    }
    const out = await run(svc, command, flags, operator, positionals);
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  } finally {
    await svc.close();
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    // the stable error code first (e.g. gw_metadata_mismatch, reader_cert_expired), then the message
    const code = e instanceof AppError ? `${e.code}: ` : '';
    process.stderr.write(`operator: ${code}${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
