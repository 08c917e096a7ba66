// The browser-binding MAC key as stored: sealed under the master key, shared by every node that has that key,
// useless to whoever holds only a copy of the database; a key stored in clear by an earlier version is sealed.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MigratedTestDatabase, migratedTestDatabase } from '../../app/test-database';
import { systemClock } from '../../common/clock';
import { KeySealer } from '../kms/key-sealer';
import { loadBrowserBinding } from './browser-binding';

describe('browser-binding key storage', () => {
  let db: MigratedTestDatabase;
  const master = randomBytes(32);
  const stored = async () =>
    (
      (await db.ds.query("SELECT value FROM service_secret WHERE name = 'browser_binding_v1'")) as {
        value: string;
      }[]
    )[0]?.value;

  beforeAll(async () => {
    db = await migratedTestDatabase('binding_key');
  });
  afterAll(async () => db?.close());

  it('is created sealed, and every node with the master key issues cookies the others accept', async () => {
    const first = await loadBrowserBinding(db.ds, systemClock, new KeySealer(master));
    const value = await stored();
    expect(value).toMatch(/^v1\./);
    const second = await loadBrowserBinding(db.ds, systemClock, new KeySealer(Buffer.from(master)));
    const cookie = first.issue();
    expect(second.verified(cookie)).toBe(cookie);
    expect(await stored()).toBe(value); // read, not replaced
  });

  it('cannot be opened without the master key', async () => {
    await expect(loadBrowserBinding(db.ds, systemClock, new KeySealer(randomBytes(32)))).rejects.toThrow(
      /must share DATA_DIR\/local-kms-master.key/,
    );
  });

  it('seals a key an earlier version stored in clear, keeping cookies it issued valid', async () => {
    const clear = randomBytes(32);
    await db.ds.query("UPDATE service_secret SET value = ? WHERE name = 'browser_binding_v1'", [
      clear.toString('base64url'),
    ]);
    const before = await loadBrowserBinding(db.ds, systemClock, new KeySealer(master));
    const cookie = before.issue();
    expect(await stored()).toMatch(/^v1\./);
    const after = await loadBrowserBinding(db.ds, systemClock, new KeySealer(master));
    expect(after.verified(cookie)).toBe(cookie);
  });
});
