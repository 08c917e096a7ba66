// `pnpm contract:check`: the breaking-change check of the business API, the /t routes (ADR 0037, 0043) and
// the GraphQL schema (ADR 0057). Compares the contracts the code declares (the routes' zod schemas and the
// webhook events, tools/contract-diff.ts) with the committed snapshot schema/contracts.json, and the GraphQL
// schema the resolvers build with schema/schema.released.graphql (tools/graphql-diff.ts); exits 1 on a breaking
// change that no ADR records with a line `breaking: <operation> <location>` (`graphql` for the schema), when a
// snapshot is not the code's, or when hosted-web/src/transport.generated.ts is not generated from the /t
// contracts. `pnpm contract:snapshot` (`--update`) writes all three, and refuses while an unrecorded breaking
// change is in a snapshot.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGraphqlSchema } from '../graphql/server';
import { declaredApi, sdlOf } from './api-contract';
import {
  breakingChanges,
  type ContractSurface,
  contractSurface,
  recordedBreaks,
  unrecorded,
} from './contract-diff';
import { graphqlBreakingChanges, RELEASED_HEADER } from './graphql-diff';
import { syncTransportTypes } from './transport-types';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SNAPSHOT = 'schema/contracts.json';
const RELEASED_GRAPHQL = 'schema/schema.released.graphql';

async function main(): Promise<number> {
  const update = process.argv.includes('--update');
  const { routes, resolvers } = declaredApi();
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
  const gqlFile = path.join(root, RELEASED_GRAPHQL);
  const gqlSchema = await buildGraphqlSchema(resolvers);
  const gqlText = `${RELEASED_HEADER}${sdlOf(gqlSchema)}`;
  const released = fs.existsSync(gqlFile) ? fs.readFileSync(gqlFile, 'utf8') : null;
  const gqlBreaks = released === null ? [] : graphqlBreakingChanges(released, gqlSchema);
  const open = unrecorded([...breakingChanges(committed, current), ...gqlBreaks], recordedBreaks(adrs));
  if (open.length) {
    console.error(
      `Breaking changes against ${SNAPSHOT} or ${RELEASED_GRAPHQL} that no ADR records:\n` +
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
    fs.writeFileSync(gqlFile, gqlText);
    console.log(`wrote ${SNAPSHOT} and ${RELEASED_GRAPHQL}`);
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
  if (released !== gqlText) {
    console.error(
      released === null
        ? `${RELEASED_GRAPHQL} is missing: run \`pnpm contract:snapshot\`.`
        : `${RELEASED_GRAPHQL} is not the code's GraphQL schema (no breaking change): run \`pnpm contract:snapshot\`.`,
    );
    return 1;
  }
  console.log(
    `contracts compatible with ${SNAPSHOT} (${Object.keys(current.operations).length} operations) and GraphQL with ${RELEASED_GRAPHQL}`,
  );
  return 0;
}

process.exit(await main());
