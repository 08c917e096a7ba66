// API key management from the dashboard (ADR 0011): list, create with scopes, revoke.
import { IsNull } from 'typeorm';
import type { Ctx } from '../../common/context';
import { AppError } from '../../common/errors';
import { API_KEY_SCOPES, type ApiKeyScope } from '../../common/roles';
import { transactionWithRetry } from '../../db/data-source';
import { ApiKeyEntity } from '../tenancy/api-key.entity';
import { AccountsPart, type ApiKeyView } from './accounts.shared';

export class ApiKeysService extends AccountsPart {
  // ---------------------------------------------------------------- API keys

  private keyView(k: ApiKeyEntity): ApiKeyView {
    return {
      id: k.id,
      prefix: `sk_${k.environment}_${k.lookup}`,
      label: k.label,
      environment: k.environment,
      scopes: k.scopes ? k.scopes.split(',') : null,
      createdBy: k.createdBy,
      createdAt: k.createdAt,
      lastUsedAt: k.lastUsedAt,
      revokedAt: k.revokedAt,
    };
  }

  /** The environment's keys (revoked ones included, marked), newest first. */
  async listApiKeys(ctx: Ctx): Promise<ApiKeyView[]> {
    const me = this.userOf(ctx);
    const rows = await this.deps.ds.getRepository(ApiKeyEntity).find({
      where: { businessId: me.businessId, environment: me.environment },
      order: { createdAt: 'DESC' },
    });
    return rows.map((k) => this.keyView(k));
  }

  async createApiKey(
    ctx: Ctx,
    label: string,
    scopes: readonly string[] | null | undefined,
  ): Promise<{ key: string; apiKey: ApiKeyView }> {
    const me = this.userOf(ctx);
    const l = label.trim();
    if (!l || l.length > 200)
      throw new AppError('validation_failed', 'label must be 1 to 200 characters.', { param: 'label' });
    const bad = (scopes ?? []).filter((s) => !(API_KEY_SCOPES as readonly string[]).includes(s));
    if (bad.length)
      throw new AppError(
        'validation_failed',
        `Unknown scope(s): ${bad.join(', ')}. Known: ${API_KEY_SCOPES.join(', ')}.`,
        {
          param: 'scopes',
        },
      );
    return transactionWithRetry(this.deps.ds, async (m) => {
      const issued = await this.deps.tenancy.issueApiKey(me.businessId, me.environment, l, {
        scopes: scopes as ApiKeyScope[] | null | undefined,
        createdBy: me.userId,
        manager: m,
      });
      await this.audit(m, {
        businessId: me.businessId,
        actor: { kind: 'user', id: me.userId },
        action: 'api_key.create',
        target: issued.id,
        detail: { environment: me.environment, scopes: scopes ?? null },
      });
      const row = await m.getRepository(ApiKeyEntity).findOneByOrFail({ id: issued.id });
      return { key: issued.key, apiKey: this.keyView(row) };
    });
  }

  async revokeApiKey(ctx: Ctx, id: string): Promise<ApiKeyView> {
    const me = this.userOf(ctx);
    return transactionWithRetry(this.deps.ds, async (m) => {
      const res = await m
        .getRepository(ApiKeyEntity)
        .update(
          { id, businessId: me.businessId, environment: me.environment, revokedAt: IsNull() },
          { revokedAt: this.now() },
        );
      if (!res.affected) throw new AppError('not_found', 'No such active API key in this environment.');
      await this.audit(m, {
        businessId: me.businessId,
        actor: { kind: 'user', id: me.userId },
        action: 'api_key.revoke',
        target: id,
      });
      return this.keyView(await m.getRepository(ApiKeyEntity).findOneByOrFail({ id }));
    });
  }
}
