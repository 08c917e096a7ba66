// The operator CLI's trust commands (ADR 0036): `trust-list add|list|refresh` and `why-trusted <file>`.
// Changes leave an operator entry in account_audit like every other operator command.
import fs from 'node:fs';
import { AppError } from '../common/errors';
import { isEnvironment } from '../common/roles';
import { summary, whyTrusted } from '../modules/trustlist/why-trusted';
import type { Service } from '../service';

type Flags = Record<string, string | undefined>;

export const TRUST_USAGE = `  trust-list add --name <label> --kind <lotl|lote> --source <https URL | absolute file> --env <env>
                 --route <route id>[,<route id>...] --anchor <pem file> [--doctype <docType>[,...]]
      An ETSI trust list (TS 119 612 LoTL or TS 119 602 LoTE) whose entities' certificates become issuer
      anchors of those routes (and mdoc IACAs for the docTypes); loaded at once, then on its NextUpdate.
  trust-list list
      The lists, the version in force, the next update and the last error.
  trust-list refresh (--list <id|name> | --all)
      Fetches and verifies now; a refused list changes nothing (the last good version stays).
  trust-list versions --list <id|name>
      Every attempt: accepted (added/removed entities) or refused (why).
  why-trusted <credential file> --env <env> [--route <route id>[,...]]
      Which route, trust list, entity and certificate make an SD-JWT VC or mdoc trusted, or why not.
`;

const need = (flags: Flags, name: string): string => {
  const v = flags[name];
  if (!v) throw new AppError('validation_failed', `--${name} is required.`, { param: name });
  return v;
};
const csv = (v: string | undefined) =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;
const envOf = (flags: Flags) => {
  const e = need(flags, 'env');
  if (!isEnvironment(e)) throw new AppError('validation_failed', '--env must be sandbox or production.');
  return e;
};

export const isTrustCommand = (command: string) => command === 'trust-list' || command === 'why-trusted';

export async function runTrustCommand(
  svc: Service,
  command: string,
  positionals: string[],
  flags: Flags,
  operator: string,
): Promise<{ text?: string; json: unknown }> {
  const audit = (action: string, target: string | null, detail?: Record<string, unknown>) =>
    svc.accounts.members.recordOperatorAction(operator, action, target, detail);
  if (command === 'why-trusted') {
    const file = positionals[0];
    if (!file) throw new AppError('validation_failed', 'Usage: why-trusted <credential file> --env <env>.');
    const report = await whyTrusted(svc.ds, {
      credential: fs.readFileSync(file, 'utf8'),
      environment: envOf(flags),
      routes: csv(flags.route),
      now: svc.clock.now(),
    });
    return { text: summary(report), json: report };
  }
  const lists = svc.trustLists;
  switch (positionals[0]) {
    case 'add': {
      const kind = need(flags, 'kind');
      const out = await lists.add({
        name: need(flags, 'name'),
        kind: kind as 'lotl' | 'lote',
        source: need(flags, 'source'),
        environment: envOf(flags),
        routes: csv(need(flags, 'route')) ?? [],
        anchorsPem: fs.readFileSync(need(flags, 'anchor'), 'utf8'),
        doctypes: csv(flags.doctype),
      });
      await audit('trust.list_add', out.id, { name: flags.name, source: flags.source, routes: flags.route });
      return { json: out };
    }
    case 'list': {
      const rows = await lists.lists();
      return {
        json: rows.map((l) => ({
          id: l.id,
          name: l.name,
          kind: l.kind,
          source: l.source,
          environment: l.environment,
          routes: JSON.parse(l.routes),
          doctypes: JSON.parse(l.doctypes),
          version_in_force: l.currentVersion,
          next_update: l.nextUpdate?.toISOString() ?? null,
          last_attempt: l.lastAttemptAt?.toISOString() ?? null,
          last_error: l.lastError,
        })),
      };
    }
    case 'refresh': {
      const targets = flags.all
        ? (await lists.lists()).map((l) => l.id)
        : [(await lists.byNameOrId(need(flags, 'list'))).id];
      const out = [];
      for (const id of targets) out.push(await lists.refresh(id));
      await audit('trust.list_refresh', flags.list ?? 'all', {
        outcomes: out.map((o) => `${o.list}:${o.status}`),
      });
      return { json: out };
    }
    case 'versions': {
      const list = await lists.byNameOrId(need(flags, 'list'));
      return {
        json: (await lists.versions(list.id)).map((v) => ({
          attempt: v.attempt,
          status: v.status,
          sequence: v.sequenceNumber,
          fetched: v.fetchedAt.toISOString(),
          next_update: v.nextUpdate?.toISOString() ?? null,
          added: JSON.parse(v.added),
          removed: JSON.parse(v.removed),
          error: v.error,
        })),
      };
    }
    default:
      throw new AppError('validation_failed', 'Usage: trust-list add|list|refresh|versions.');
  }
}
