// Runs once per test run, before any suite (vitest.config.ts globalSetup): builds the scripts suites spawn, and on
// MySQL/MariaDB makes the run's template database, which the suites' migrated databases are copied from
// (server/src/app/test-database.ts; ADR 0066). Workers inherit its name through the environment.
import { createRequire } from 'node:module';
import { testEngine } from './config';
import { buildScriptBundles } from './script-bundles';

export default async function setup(): Promise<() => Promise<void>> {
  await buildScriptBundles();
  if (testEngine() === 'embedded') return async () => {};
  // the entities' decorators need the metadata polyfill before they load (as vitest-setup.ts does for suites)
  createRequire(new URL('../../server/package.json', import.meta.url))('reflect-metadata');
  const { createTemplateDatabase, TEMPLATE_DATABASE_ENV } = await import(
    '../../server/src/app/test-database'
  );
  try {
    const template = await createTemplateDatabase();
    process.env[TEMPLATE_DATABASE_ENV] = template.name;
    return () => template.drop();
  } catch (e) {
    // no database server: the suites that need one say so themselves; the others run
    console.warn(`no template database (${e instanceof Error ? e.message : String(e)})`);
    return async () => {};
  }
}
