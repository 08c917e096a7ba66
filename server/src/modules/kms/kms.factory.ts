// Owns the choice of KMS provider from configuration (KMS_PROVIDER=local|gcp|aws); a cloud SDK is loaded only
// when its provider is chosen. The local provider is always built: it holds the evidence key-encryption keys
// with every provider, and the audit key with `local`.
import type { KMSClientConfig } from '@aws-sdk/client-kms';
import type { KeyManagementServiceClient } from '@google-cloud/kms';
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { inSpan } from '../../common/tracing';
import type { Config } from '../../config/config';
import { AwsKmsSigner } from './aws-kms.provider';
import { CloudSigningKms } from './cloud-signing';
import { GcpKmsSigner } from './gcp-kms.provider';
import type { KmsProvider } from './kms';
import { LocalKmsProvider } from './local-kms.provider';

/** Cloud SDK client options beyond configuration (credentials: the true edge tests replace). */
export interface KmsClientOverrides {
  gcp?: ConstructorParameters<typeof KeyManagementServiceClient>[0];
  aws?: KMSClientConfig;
}

export async function createKmsProvider(deps: {
  config: Config;
  ds: DataSource;
  clock: Clock;
  masterKey: Buffer;
  overrides?: KmsClientOverrides;
}): Promise<{ kms: KmsProvider; close(): Promise<void> }> {
  const { config, ds, clock } = deps;
  const local = new LocalKmsProvider({ ds, keyRing: config.kmsKeyRing, masterKey: deps.masterKey, clock });
  const k = config.kms;
  if (k.provider === 'local') return { kms: traced(local, 'local'), close: async () => {} };
  const signer =
    k.provider === 'gcp'
      ? await GcpKmsSigner.create(k.keyVersion, { endpoint: k.endpoint, clientOptions: deps.overrides?.gcp })
      : await AwsKmsSigner.create(k.keyId, {
          endpoint: k.endpoint,
          region: k.region,
          clientOptions: deps.overrides?.aws,
        });
  return {
    kms: traced(new CloudSigningKms({ ds, clock, signer, local }), k.provider),
    close: () => signer.close(),
  };
}

const TRACED: ReadonlySet<PropertyKey> = new Set(['signDigest', 'generateDataKey', 'decryptDataKey']);

/** The provider with a span around each call that reaches key material (a KMS round trip in the cloud). */
function traced<K extends KmsProvider>(kms: K, provider: string): K {
  return new Proxy(kms, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target);
      if (typeof v !== 'function') return v;
      if (!TRACED.has(prop)) return v.bind(target);
      return (...args: unknown[]) =>
        inSpan(`kms.${String(prop)}`, { 'kms.provider': provider }, () => v.apply(target, args));
    },
  });
}
