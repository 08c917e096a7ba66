// A test certificate authority made with the openssl CLI only (nothing of ours): a root and an intermediate,
// and `openssl ca` issuing leaves from PKCS#10 CSRs with the extensions and validity a test asks for. Used to
// issue the verifier's access certificate from the CSR the operator CLI prints, and to check what the service
// signs with `openssl verify`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const run = (cwd: string, args: string[], input?: string): string =>
  execFileSync('openssl', args, { cwd, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

export interface TestCa {
  dir: string;
  rootPem: string;
  intermediatePem: string;
  /** Issues a leaf (PEM) for the CSR with the given extension lines, signed by the intermediate. */
  issue(
    csrPem: string,
    opts?: { san?: string; keyUsage?: string; startdate?: string; enddate?: string },
  ): string;
  /** `openssl verify` of a leaf (PEM) with untrusted intermediates against this CA's root: its output. */
  verify(leafPem: string, intermediatesPem: string): string;
  /** A CSR for a key that is not the service's (PEM). */
  foreignCsr(cn: string): string;
  remove(): void;
}

export function makeTestCa(name = 'Test Access CA'): TestCa {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-ca-'));
  fs.mkdirSync(path.join(dir, 'newcerts'));
  fs.writeFileSync(path.join(dir, 'index.txt'), '');
  fs.writeFileSync(path.join(dir, 'serial'), '1000\n');
  fs.writeFileSync(
    path.join(dir, 'ca.cnf'),
    [
      '[ ca ]',
      'default_ca = CA_default',
      '[ CA_default ]',
      `dir = ${dir}`,
      'database = $dir/index.txt',
      'new_certs_dir = $dir/newcerts',
      'serial = $dir/serial',
      'default_md = sha256',
      'default_days = 30',
      'policy = policy_any',
      'unique_subject = no',
      'copy_extensions = none',
      '[ policy_any ]',
      'commonName = supplied',
      '',
    ].join('\n'),
  );
  run(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'root.key']);
  run(dir, [
    'req',
    '-x509',
    '-new',
    '-key',
    'root.key',
    '-subj',
    `/CN=${name} Root`,
    '-days',
    '60',
    '-out',
    'root.pem',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  run(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'int.key']);
  run(dir, ['req', '-new', '-key', 'int.key', '-subj', `/CN=${name} Intermediate`, '-out', 'int.csr']);
  fs.writeFileSync(
    path.join(dir, 'int.ext'),
    'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n',
  );
  run(dir, [
    'ca',
    '-config',
    'ca.cnf',
    '-batch',
    '-notext',
    '-in',
    'int.csr',
    '-out',
    'int.pem',
    '-cert',
    'root.pem',
    '-keyfile',
    'root.key',
    '-extfile',
    'int.ext',
    '-days',
    '50',
  ]);
  let n = 0;
  return {
    dir,
    rootPem: fs.readFileSync(path.join(dir, 'root.pem'), 'utf8'),
    intermediatePem: fs.readFileSync(path.join(dir, 'int.pem'), 'utf8'),
    issue(csrPem, opts = {}) {
      n += 1;
      fs.writeFileSync(path.join(dir, `leaf${n}.csr`), csrPem);
      fs.writeFileSync(
        path.join(dir, `leaf${n}.ext`),
        [
          'basicConstraints=critical,CA:FALSE',
          `keyUsage=critical,${opts.keyUsage ?? 'digitalSignature'}`,
          `subjectAltName=${opts.san ?? 'DNS:127.0.0.1'}`,
          '',
        ].join('\n'),
      );
      const validity = opts.startdate
        ? ['-startdate', opts.startdate, '-enddate', opts.enddate ?? '']
        : ['-days', '20'];
      run(dir, [
        'ca',
        '-config',
        'ca.cnf',
        '-batch',
        '-notext',
        '-in',
        `leaf${n}.csr`,
        '-out',
        `leaf${n}.pem`,
        '-cert',
        'int.pem',
        '-keyfile',
        'int.key',
        '-extfile',
        `leaf${n}.ext`,
        ...validity,
      ]);
      return fs.readFileSync(path.join(dir, `leaf${n}.pem`), 'utf8');
    },
    verify(leafPem, intermediatesPem) {
      fs.writeFileSync(path.join(dir, 'check-leaf.pem'), leafPem);
      fs.writeFileSync(path.join(dir, 'check-untrusted.pem'), intermediatesPem);
      try {
        return run(dir, [
          'verify',
          '-CAfile',
          'root.pem',
          '-untrusted',
          'check-untrusted.pem',
          'check-leaf.pem',
        ]);
      } catch (e) {
        return String((e as { stderr?: string }).stderr ?? e);
      }
    },
    foreignCsr(cn) {
      n += 1;
      run(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `foreign${n}.key`]);
      return run(dir, ['req', '-new', '-key', `foreign${n}.key`, '-subj', `/CN=${cn}`]);
    },
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** PEM of base64 DER certificates (an x5c array). */
export const pemOf = (x5c: string[]): string =>
  x5c
    .map(
      (b) =>
        `-----BEGIN CERTIFICATE-----\n${b.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`,
    )
    .join('');
