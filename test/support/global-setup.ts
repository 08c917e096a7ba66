// Runs once per test run, before any suite (vitest.config.ts globalSetup).
import { buildScriptBundles } from './script-bundles';

export default async function setup(): Promise<void> {
  await buildScriptBundles();
}
