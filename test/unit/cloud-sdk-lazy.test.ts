// ADR 0066: a process with the local KMS loads neither cloud KMS SDK (their import cost every `pnpm start`, every
// `pnpm operator` and every spawned test process about a second). The service graph is imported in a node
// process of its own (suites share their worker, where a cloud KMS suite may have loaded one), and the same
// check then sees the SDK once it is imported, so it can tell the two apart.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT } from '../support/dashboard';
import { TSX_ENV } from '../support/embedded-process';

const script = `
  import { createRequire } from 'node:module';
  const cache = createRequire(process.cwd() + '/').cache;
  const loaded = () => Object.keys(cache).filter((k) => /@google-cloud[\\\\/]kms|@aws-sdk[\\\\/]client-kms/.test(k)).length > 0;
  await import('./src/service.ts');
  const afterService = loaded();
  await import('@google-cloud/kms');
  console.log(JSON.stringify({ afterService, afterSdk: loaded() }));`;

it('importing the service graph loads no cloud KMS SDK; only the provider that needs one does', async () => {
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: path.join(REPO_ROOT, 'server'), env: { ...process.env, ...TSX_ENV }, timeout: 60_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );
  expect(JSON.parse(out.trim().split('\n').at(-1) as string)).toEqual({
    afterService: false,
    afterSdk: true,
  });
}, 90_000);
