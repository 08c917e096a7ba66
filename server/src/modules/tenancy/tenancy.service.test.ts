import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MigratedTestDatabase, migratedTestDatabase } from '../../app/test-database';
import { ManualClock } from '../../common/clock';
import { isAppError } from '../../common/errors';
import { ApiKeyEntity } from './api-key.entity';
import { TenancyService } from './tenancy.service';

describe('API keys', () => {
  let db: MigratedTestDatabase;
  let ds: DataSource;
  let tenancy: TenancyService;
  beforeAll(async () => {
    db = await migratedTestDatabase('tenancy');
    ds = db.ds;
    tenancy = new TenancyService({ ds, clock: new ManualClock() });
  });
  afterAll(async () => {
    await db?.close();
  });

  it('are shown once with an environment prefix, stored hashed, and authenticate to their tenant', async () => {
    const biz = await tenancy.createBusiness('Acme');
    const sandbox = await tenancy.issueApiKey(biz.id, 'sandbox');
    const live = await tenancy.issueApiKey(biz.id, 'production');
    expect(sandbox.key).toMatch(/^sk_sandbox_/);
    expect(live.key).toMatch(/^sk_production_/);
    const stored = await ds.getRepository(ApiKeyEntity).find();
    expect(JSON.stringify(stored)).not.toContain(sandbox.key.slice(-40));
    await expect(tenancy.authenticate(sandbox.key)).resolves.toMatchObject({
      businessId: biz.id,
      environment: 'sandbox',
    });
  });

  it('refuse wrong, altered, swapped-prefix and revoked keys with unauthenticated', async () => {
    const biz = await tenancy.createBusiness('Beta');
    const k = await tenancy.issueApiKey(biz.id, 'sandbox');
    const altered = `${k.key.slice(0, -1)}${k.key.endsWith('a') ? 'b' : 'a'}`;
    const swapped = k.key.replace('sk_sandbox_', 'sk_production_');
    for (const bad of [undefined, '', 'nonsense', altered, swapped]) {
      const err = await tenancy.authenticate(bad).catch((e) => e);
      expect(isAppError(err) && err.code).toBe('unauthenticated');
    }
    await tenancy.revokeApiKey(biz.id, k.id);
    const err = await tenancy.authenticate(k.key).catch((e) => e);
    expect(isAppError(err) && err.code).toBe('unauthenticated');
  });

  it('recognise a remembered key without its row, refuse its altered forms, and confirm a revocation', async () => {
    const biz = await tenancy.createBusiness('Gamma');
    const k = await tenancy.issueApiKey(biz.id, 'production', 'scoped', { scopes: ['sessions:create'] });
    // not remembered yet: read and checked like authenticate, nothing left to confirm
    const first = await tenancy.authenticateRemembered(k.key);
    expect(first.confirm).toBeUndefined();
    const again = await tenancy.authenticateRemembered(k.key);
    expect(again.actor).toEqual({
      kind: 'api_key',
      apiKeyId: k.id,
      businessId: biz.id,
      environment: 'production',
      scopes: ['sessions:create'],
    });
    expect(again.confirm).toEqual(expect.any(Function));
    const altered = `${k.key.slice(0, -1)}${k.key.endsWith('a') ? 'b' : 'a'}`;
    const swapped = k.key.replace('sk_production_', 'sk_sandbox_');
    for (const bad of [altered, swapped]) {
      const e = await tenancy.authenticateRemembered(bad).catch((x) => x);
      expect(isAppError(e) && e.code).toBe('unauthenticated');
    }
    // a wrong secret makes the row decide again; the real key still works
    expect((await tenancy.authenticateRemembered(k.key)).actor.apiKeyId).toBe(k.id);
    await expect((await tenancy.authenticateRemembered(k.key)).confirm?.()).resolves.toBeUndefined();
    await tenancy.revokeApiKey(biz.id, k.id);
    // still recognised from memory (the route's write checks revocation), but confirming it refuses
    const stale = await tenancy.authenticateRemembered(k.key);
    const refused = await stale.confirm?.().catch((x) => x);
    expect(isAppError(refused) && refused.code).toBe('unauthenticated');
    // and the refusal forgot it: the next check reads the row and refuses at once
    const next = await tenancy.authenticateRemembered(k.key).catch((x) => x);
    expect(isAppError(next) && next.code).toBe('unauthenticated');
  });
});
