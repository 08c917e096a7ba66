// `pnpm operator google-metadata <import|list>`: Google Wallet's relying-party metadata (issue 26, ADR 0050).
// Google returns, with the certificate it signed (or for a business's leaf in registrar mode), the
// `gw_rp_metadata_bytes` its production wallet wants in every signed request; the import checks them against
// the certificate's extension 1.3.6.1.4.1.11129.10.1 (gw_metadata_mismatch otherwise) and records who did it.
import fs from 'node:fs';
import { AppError } from '../common/errors';
import type { Service } from '../service';

export const GOOGLE_USAGE = `  google-metadata import --cert <pem file> --metadata <file with the base64url gw_rp_metadata_bytes>
      Google Wallet (ADR 0050): the metadata Google returned with the certificate (the leaf of our access chain,
      or a business's leaf in registrar mode); refused unless its SHA-256 is in the certificate's extension
      1.3.6.1.4.1.11129.10.1. Signed DC API requests under that leaf then carry client_metadata.gw_rp_metadata_bytes.
  google-metadata list
      Imported metadata per leaf.
`;

type Flags = Record<string, string | undefined>;

const readFile = (flags: Flags, name: string): string => {
  const file = flags[name];
  if (!file || !fs.existsSync(file))
    throw new AppError('validation_failed', `Give --${name} <file>.`, { param: name });
  return fs.readFileSync(file, 'utf8');
};

export async function googleMetadataCommand(
  svc: Service,
  args: string[],
  flags: Flags,
  operator: string,
): Promise<unknown> {
  switch (args[0]) {
    case 'import': {
      const out = await svc.gwMetadata.import(readFile(flags, 'cert'), readFile(flags, 'metadata'));
      await svc.accounts.members.recordOperatorAction(
        operator,
        'gw_rp_metadata.import',
        String(out.leaf_sha256),
        {
          business: out.business,
          environment: out.environment,
          bytes: out.bytes,
        },
      );
      return out;
    }
    case 'list':
      return svc.gwMetadata.list();
    default:
      throw new AppError('validation_failed', 'google-metadata needs import or list.');
  }
}
