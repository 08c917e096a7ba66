// A MariaDB server of a suite's own (mariadbd on a free port, its own datadir and socket under /tmp), for
// tests that stop and restart the database under a running service. The shared server at TEST_MYSQL_URL is
// never touched. Needs mariadbd and mariadb-install-db (Debian mariadb-server).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { freePort } from './harness';

const run = promisify(execFile);

export interface ScratchMariaDb {
  /** mysql://root@127.0.0.1:<port>/<database> */
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  destroy(): Promise<void>;
}

export async function scratchMariaDb(database = 'svc'): Promise<ScratchMariaDb> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-mariadb-'));
  const datadir = path.join(dir, 'data');
  await run('mariadb-install-db', [
    '--no-defaults',
    `--datadir=${datadir}`,
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
    `--user=${os.userInfo().username}`,
  ]);
  const port = await freePort();
  let proc: ChildProcess | undefined;
  const serverUrl = `mysql://root@127.0.0.1:${port}`;

  const start = async () => {
    proc = spawn(
      'mariadbd',
      [
        '--no-defaults',
        `--datadir=${datadir}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        `--socket=${path.join(dir, 'mysqld.sock')}`,
        `--pid-file=${path.join(dir, 'mysqld.pid')}`,
        // its own temp dir: a starting mariadbd deletes every "#sql*" file in its tmpdir, which in /tmp would be
        // the shared test server's live temporary tables (a migration elsewhere once failed on exactly that)
        `--tmpdir=${dir}`,
        `--log-error=${path.join(dir, 'error.log')}`,
        `--user=${os.userInfo().username}`,
        '--skip-grant-tables', // a throwaway server on loopback: no accounts to manage
        '--skip-name-resolve',
        '--innodb-buffer-pool-size=16M',
        '--innodb-log-file-size=8M',
        '--skip-log-bin',
      ],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 60_000; // generous: CI machines can be busy
    for (;;) {
      try {
        const c = await mysql.createConnection(serverUrl);
        await c.end();
        return;
      } catch (e) {
        if (Date.now() > deadline || proc.exitCode !== null)
          throw new Error(`mariadbd did not start: ${String(e)}\n${readLog()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const readLog = () => {
    try {
      return fs.readFileSync(path.join(dir, 'error.log'), 'utf8').slice(-2000);
    } catch {
      return '';
    }
  };
  const stop = async () => {
    const p = proc;
    proc = undefined;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    await exited;
  };

  await start();
  const c = await mysql.createConnection(serverUrl);
  await c.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await c.end();

  return {
    url: `${serverUrl}/${database}`,
    start,
    stop,
    async destroy() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
