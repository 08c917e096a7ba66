// `pnpm contract:check`: the breaking-change check of the business API and the /t routes (ADR 0037, 0043).
// Compares the contracts the code declares (the routes' zod schemas and the webhook events,
// tools/contract-diff.ts) with the committed snapshot schema/contracts.json, and exits 1 on a breaking change
// that no ADR records with a line `breaking: <operation> <location>`, when the snapshot is not the code's, or
// when hosted-web/src/transport.generated.ts is not generated from the /t contracts. `pnpm contract:snapshot`
// (`--update`) writes both, and refuses while an unrecorded breaking change is in the snapshot.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { declaredApi } from './api-contract';
import {
  breakingChanges,
  type ContractSurface,
  contractSurface,
  recordedBreaks,
  unrecorded,
} from './contract-diff';
import { syncTransportTypes } from './transport-types';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SNAPSHOT = 'schema/contracts.json';

async function main(): Promise<number> {
  const update = process.argv.includes('--update');
  const { routes } = declaredApi();
  const current = contractSurface(routes.routes, routes.events);
  const text = `${JSON.stringify(current, null, 2)}\n`;
  const file = path.join(root, SNAPSHOT);
  const committed: ContractSurface = fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, 'utf8')) as ContractSurface)
    : { operations: {} };
  const adrDir = path.join(root, 'docs/adr');
  const adrs = fs
    .readdirSync(adrDir)
    .filter((f) => f.endsWith('.md'))
    .map((f) => fs.readFileSync(path.join(adrDir, f), 'utf8'));
  const open = unrecorded(breakingChanges(committed, current), recordedBreaks(adrs));
  if (open.length) {
    console.error(
      `Breaking changes against ${SNAPSHOT} that no ADR records:\n` +
        open.map((c) => `  ${c.kind}: ${c.operation} ${c.location} (${c.detail})`).join('\n') +
        '\n\nAvoid them, or record each in an ADR (docs/adr/) with a line ' +
        '`breaking: <operation> <location>` and the migration path for integrators.',
    );
    return 1;
  }
  // the hosted page's /t payload types are generated from the same contracts (ADR 0043)
  const drift = await syncTransportTypes(update);
  if (update) {
    fs.writeFileSync(file, text);
    console.log(`wrote ${SNAPSHOT}`);
    return 0;
  }
  if (drift) {
    console.error(drift);
    return 1;
  }
  if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) {
    console.error(
      `${SNAPSHOT} is not the code's contracts (no breaking change): run \`pnpm contract:snapshot\`.`,
    );
    return 1;
  }
  console.log(`contracts compatible with ${SNAPSHOT} (${Object.keys(current.operations).length} operations)`);
  return 0;
}

process.exit(await main());
