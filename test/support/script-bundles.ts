// The server's entry points as the suites run them in their own processes: each built once per test run into
// one ES module by esbuild (the transform tsx itself uses), so a child process loads one file instead of
// resolving and transforming some three thousand through tsx's loader hooks (the operator CLI's `--help`: 2.5 s
// through tsx, 1.8 s from the bundle; ADR 0066). Packages stay imports (resolved from server/node_modules, as
// the sources resolve them), and each module's `import.meta.url` keeps naming its source file, so paths built
// from it (hosted-web/dist, schema/, createRequire) resolve as they do under tsx.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The scripts the suites spawn that are built; any other runs through tsx. */
export const BUNDLED_SCRIPTS = [
  'server/src/main.ts',
  'server/src/tools/operator.ts',
  'server/src/tools/verify-receipt.ts',
] as const;

/** Under server/, so the bundle's package imports resolve from server/node_modules like the sources'. */
const outDir = path.join(repoRoot, 'server/node_modules/.cache/test-scripts');

/** Where a script's bundle is (built by the test run's global setup), or undefined when it is not one of them. */
export function bundledScript(script: string): string | undefined {
  const rel = path.relative(repoRoot, path.resolve(repoRoot, script));
  if (!(BUNDLED_SCRIPTS as readonly string[]).includes(rel)) return undefined;
  return path.join(outDir, `${path.basename(rel, '.ts')}.mjs`);
}

/**
 * How a script of ours runs in its own process: node itself, never the tsx CLI, whose child node process
 * survives a kill (or an execFile timeout) sent to the wrapper. The BUNDLED_SCRIPTS run from the bundle the
 * test run built from their sources; any other script through tsx's loader.
 */
export function tsNode(script: string, args: readonly string[] = []): { file: string; args: string[] } {
  const bundle = bundledScript(script);
  return { file: process.execPath, args: bundle ? [bundle, ...args] : ['--import', 'tsx', script, ...args] };
}

/** Each module's import.meta.url as its own source file's URL (a bundle would otherwise give the bundle's). */
const sourceUrls: Plugin = {
  name: 'source-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8');
      return {
        contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
        loader: 'ts',
      };
    });
  },
};

/**
 * Builds every bundled script (a fraction of a second); the run's global setup calls it once. Each file is
 * replaced by a rename, so a test run going on beside this one never starts a half-written bundle.
 */
export async function buildScriptBundles(): Promise<void> {
  const out = await build({
    entryPoints: BUNDLED_SCRIPTS.map((s) => ({ in: path.join(repoRoot, s), out: path.basename(s, '.ts') })),
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    tsconfig: path.join(repoRoot, 'server/tsconfig.json'),
    plugins: [sourceUrls],
    logLevel: 'error',
    write: false,
  });
  fs.mkdirSync(outDir, { recursive: true });
  for (const f of out.outputFiles) {
    const tmp = `${f.path}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, f.contents);
    fs.renameSync(tmp, f.path);
  }
}
