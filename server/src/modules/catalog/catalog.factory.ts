// A small factory for tests and fixtures: a credential route (wallet x issuer) with its wallet and issuer,
// created if missing, bumping the catalog version in the same transaction like every catalog write (ADR 0025).
import type { DataSource } from 'typeorm';
import { transactionWithRetry } from '../../db/data-source';
import {
  CredentialIssuerEntity,
  CredentialRouteEntity,
  WalletEntity,
} from '../credential-routes/catalog.entities';
import { maskOf, PRIMITIVES } from '../workflow/primitives';
import { bumpCatalogVersion } from './catalog.service';

export async function ensureRoute(
  ds: DataSource,
  input: {
    id: string;
    walletId: string;
    issuerId: string;
    /** The issuer's `iss`. */
    identifier: string;
    formats?: string[];
    /** Available in production (all three acceptances) as well as in the sandbox. */
    production?: boolean;
    now: Date;
  },
): Promise<void> {
  await transactionWithRetry(ds, async (m) => {
    await bumpCatalogVersion(m);
    const at = { createdAt: input.now, updatedAt: input.now };
    if (!(await m.getRepository(WalletEntity).existsBy({ id: input.walletId })))
      await m.getRepository(WalletEntity).insert({
        id: input.walletId,
        name: input.walletId,
        provider: 'test',
        description: '',
        platforms: '["web"]',
        ...at,
      });
    if (!(await m.getRepository(CredentialIssuerEntity).existsBy({ id: input.issuerId })))
      await m.getRepository(CredentialIssuerEntity).insert({
        id: input.issuerId,
        identifier: input.identifier,
        name: input.issuerId,
        country: null,
        description: '',
        sandboxOnly: false,
        ...at,
      });
    if (await m.getRepository(CredentialRouteEntity).existsBy({ id: input.id })) return;
    const accepted = input.production === true;
    await m.getRepository(CredentialRouteEntity).insert({
      id: input.id,
      walletId: input.walletId,
      issuerId: input.issuerId,
      formats: JSON.stringify(input.formats ?? ['dc+sd-jwt']),
      primitives: maskOf(PRIMITIVES),
      sandboxAvailable: true,
      productionAvailable: accepted,
      providerAccepted: accepted,
      issuerAccepted: accepted,
      serviceAccepted: accepted,
      notes: '',
      ...at,
    });
  });
}
