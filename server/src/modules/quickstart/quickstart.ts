// Owns the first-run experience: on an empty database, seed a sandbox business with an API key, a
// published identify workflow and a webhook endpoint pointing at the built-in development receiver.
// The key is written to DATA_DIR/quickstart.json (a local development file) because it is never stored.
import fs from 'node:fs';
import path from 'node:path';
import type { Service } from '../../app/service-types';
import type { Ctx } from '../../common/context';
import type { Config } from '../../config/config';
import { BusinessEntity } from '../tenancy/business.entity';
import { WorkflowEntity } from '../workflow/workflow.entity';

export interface Quickstart {
  api_key: string;
  workflow_id: string;
  base_url: string;
}

export const quickstartFile = (config: Pick<Config, 'dataDir'>) =>
  path.join(config.dataDir, 'quickstart.json');

export async function seedQuickstart(svc: Service): Promise<Quickstart | null> {
  const file = quickstartFile(svc.config);
  if ((await svc.ds.getRepository(BusinessEntity).count()) > 0) {
    return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Quickstart) : null;
  }
  const biz = await svc.tenancy.createBusiness('Sandbox Business');
  const key = await svc.tenancy.issueApiKey(biz.id, 'sandbox', 'quickstart');
  const ctx: Ctx = {
    actor: { kind: 'api_key', apiKeyId: key.id, businessId: biz.id, environment: 'sandbox' },
    requestId: 'seed',
    clock: svc.clock,
  };
  const wf = await svc.workflows.create(ctx, {
    name: 'Identify (quickstart)',
    apiOnly: true,
    steps: [
      {
        primitive: 'identify',
        claims: ['given_name', 'family_name', 'birth_date', 'nationality', 'document_status'],
      },
    ],
  });
  await svc.workflows.publish(ctx, wf.id);
  await svc.webhooks.configureEndpoint(ctx, `${svc.config.baseUrl}/dev/webhook-receiver`);
  const qs: Quickstart = { api_key: key.key, workflow_id: wf.id, base_url: svc.config.baseUrl };
  fs.writeFileSync(file, `${JSON.stringify(qs, null, 2)}\n`, { mode: 0o600 });
  return qs;
}

export function quickstartBanner(qs: Quickstart): string {
  return [
    '',
    'Sandbox quickstart (also in DATA_DIR/quickstart.json)',
    `  API key (sandbox):  ${qs.api_key}`,
    `  Workflow id:        ${qs.workflow_id}`,
    `  Webhook deliveries: ${qs.base_url}/dev/webhook-receiver`,
    '',
    'Create a session:',
    `  curl -s -X POST ${qs.base_url}/v1/sessions \\`,
    `    -H "Authorization: Bearer ${qs.api_key}" \\`,
    '    -H "Content-Type: application/json" \\',
    `    -d '{"workflow_id":"${qs.workflow_id}"}'`,
    '',
    'Open the "url" from the answer in a browser, press Start, and share with the sandbox reference wallet.',
    '',
  ].join('\n');
}

/** The dashboard owner of the seeded quickstart business (a local address: nothing is mailed outside). */
export const QUICKSTART_OWNER_EMAIL = 'owner@quickstart.localhost';

/**
 * Development only: a one-time dashboard link for the quickstart business, printed by `pnpm start` (an owner
 * invitation until the owner exists, a sign-in link afterwards; AccountsService.quickstartOwnerLink). Null in
 * production or when the quickstart business is not there.
 */
export async function quickstartOwnerLink(
  svc: Service,
  qs: Quickstart,
): Promise<{ kind: 'invitation' | 'sign_in'; link: string; expiresAt: Date } | null> {
  if (svc.config.appEnv !== 'development') return null;
  const wf = await svc.ds.getRepository(WorkflowEntity).findOneBy({ id: qs.workflow_id });
  if (!wf) return null;
  return svc.accounts.invitations.quickstartOwnerLink(wf.businessId, QUICKSTART_OWNER_EMAIL);
}

export function ownerLinkBanner(o: { kind: 'invitation' | 'sign_in'; link: string }): string {
  const what =
    o.kind === 'invitation'
      ? 'becomes the owner of this business; valid once, for 24 hours'
      : 'signs you in as its owner; valid once, for 15 minutes';
  return [`Dashboard (opening this link ${what}; a restart prints a new one):`, `  ${o.link}`, ''].join('\n');
}
