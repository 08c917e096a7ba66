// The upgrade path of the route-trust migration (ADR 0036), on MariaDB and on the embedded SQLite: existing
// issuer keys and anchors are attached to every route of their issuer (one copy per further route), mdoc
// IACAs to the mdoc routes of their environment's kind, and a key no route matches stays unattached.
import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { afterAll, describe, expect, it } from 'vitest';
import { createDataSource } from '../../app/database';
import { createTestDatabase, type TestDatabase } from '../../app/test-database';
import { RouteTrustAndTrustLists1765200000000 } from './1765200000000-route-trust-and-trust-lists';
import { MIGRATIONS } from './index';

type Row = Record<string, unknown>;
const T0 = '2026-11-01 10:00:00.000';

async function seed(ds: DataSource): Promise<void> {
  const issuer = (id: string, identifier: string, sandboxOnly: number) =>
    ds.query(
      'INSERT INTO credential_issuer (id, identifier, name, country, description, sandbox_only, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, ?, ?, ?)',
      [id, identifier, id, '', sandboxOnly, T0, T0],
    );
  const route = (id: string, walletId: string, issuerId: string, formats: string[]) =>
    ds.query(
      'INSERT INTO credential_route (id, wallet_id, issuer_id, formats, identify, age_verify, sign, attestation, sandbox_available, production_available, provider_accepted, issuer_accepted, service_accepted, notes, created_at, updated_at) VALUES (?, ?, ?, ?, 1, 1, 1, 1, 1, 0, 0, 0, 0, ?, ?, ?)',
      [id, walletId, issuerId, JSON.stringify(formats), '', T0, T0],
    );
  await issuer('iss_pid', 'https://pid.example', 0);
  await issuer('iss_sbx', 'https://sandbox.example', 1);
  await route('rte_a', 'wal_1', 'iss_pid', ['dc+sd-jwt', 'mso_mdoc']);
  await route('rte_b', 'wal_2', 'iss_pid', ['dc+sd-jwt']);
  await route('rte_s', 'wal_1', 'iss_sbx', ['dc+sd-jwt', 'mso_mdoc']);
  const key = (id: string, iss: string) =>
    ds.query(
      'INSERT INTO trusted_issuer (id, issuer, environment, name, public_jwk, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      [id, iss, 'production', id, '{"kty":"EC"}', T0],
    );
  await key('tri_pid', 'https://pid.example');
  await key('tri_lost', 'https://nobody.example');
  await ds.query(
    'INSERT INTO trust_anchor (id, issuer, environment, name, certificate, fingerprint, not_after, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ['tan_pid', 'https://pid.example', 'production', 'root', 'PEM', 'f'.repeat(64), T0, T0],
  );
  const iaca = (id: string, environment: string) =>
    ds.query(
      'INSERT INTO mdoc_trust_anchor (id, environment, doctype, name, subject, certificate_pem, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [id, environment, 'org.iso.18013.5.1.mDL', id, 'CN=x', 'PEM', T0],
    );
  await iaca('mta_prod', 'production');
  await iaca('mta_sbx', 'sandbox');
}

async function upgradeAndCheck(ds: DataSource): Promise<void> {
  ds.setOptions({
    migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(RouteTrustAndTrustLists1765200000000)),
  });
  await ds.initialize();
  try {
    await ds.runMigrations();
    await seed(ds);
    const q = ds.createQueryRunner();
    try {
      await new RouteTrustAndTrustLists1765200000000().up(q);
      const routesOf = async (table: string, where: string) =>
        ((await ds.query(`SELECT route_id FROM ${table} WHERE ${where} ORDER BY route_id`)) as Row[]).map(
          (r) => r.route_id,
        );
      expect(await routesOf('trusted_issuer', "issuer = 'https://pid.example'")).toEqual(['rte_a', 'rte_b']);
      expect(await routesOf('trusted_issuer', "issuer = 'https://nobody.example'")).toEqual([null]);
      expect(await routesOf('trust_anchor', "issuer = 'https://pid.example'")).toEqual(['rte_a', 'rte_b']);
      expect(await routesOf('mdoc_trust_anchor', "environment = 'production'")).toEqual(['rte_a']);
      expect(await routesOf('mdoc_trust_anchor', "environment = 'sandbox'")).toEqual(['rte_s']);
      expect(await q.hasTable('trust_list_version')).toBe(true);
      await new RouteTrustAndTrustLists1765200000000().down(q);
      expect(await q.hasTable('trust_list')).toBe(false);
      expect(await q.hasColumn('trust_anchor', 'route_id')).toBe(false);
    } finally {
      await q.release();
    }
  } finally {
    await ds.destroy();
  }
}

describe('migration 1765200000000-route-trust-and-trust-lists on existing data', () => {
  let db: TestDatabase | undefined;
  const dirs: string[] = [];
  afterAll(async () => {
    await db?.drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('attaches keys, anchors and IACAs to their routes on MariaDB, and back', async () => {
    db = await createTestDatabase('mig_route_trust');
    await upgradeAndCheck(await createDataSource({ databaseUrl: db.url, dataDir: '/nonexistent' }));
  }, 120_000);

  it('attaches keys, anchors and IACAs to their routes on the embedded SQLite, and back', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mig-route-trust-'));
    dirs.push(dir);
    await upgradeAndCheck(await createDataSource({ databaseUrl: undefined, dataDir: dir }));
  }, 120_000);
});
