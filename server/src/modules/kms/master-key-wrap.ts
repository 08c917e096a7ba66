// Owns the two calls that wrap and unwrap the service master key in a cloud KMS (envelope encryption, ADR
// 0048): Google Cloud KMS encrypt/decrypt on a symmetric cryptoKey (the primary version encrypts; decrypt finds
// the version in the ciphertext and says whether it was the primary), AWS KMS Encrypt/Decrypt on a symmetric
// key. Both bind the purpose as associated data (GCP additionalAuthenticatedData, AWS EncryptionContext), so a
// ciphertext made for something else never unwraps as the master key. GCP requests and answers carry the
// CRC32C integrity checks Google's samples make.
import { crc32c } from '@aws-crypto/crc32c';
import type { KMSClient, KMSClientConfig } from '@aws-sdk/client-kms';
import type { KeyManagementServiceClient } from '@google-cloud/kms';
import type { Config } from '../../config/config';
import { awsKmsClient } from './aws-kms.provider';
import { type GcpClientOptions, gcpKmsClient } from './gcp-kms.provider';

/** What the master key's ciphertext is bound to (never changes: it is part of every wrapped master key). */
export const MASTER_KEY_AAD = 'credential-verification-service/master-key/v1';

export interface KeyWrapper {
  readonly provider: 'gcp' | 'aws';
  /** Encrypts under `key`; `keyVersion` names the version that did (GCP) or the key ARN (AWS). */
  wrap(key: string, plaintext: Buffer): Promise<{ ciphertext: Buffer; keyVersion: string }>;
  /** Decrypts a ciphertext made under `key`; `stale`: made under a version that is no longer the primary. */
  unwrap(key: string, ciphertext: Buffer): Promise<{ plaintext: Buffer; stale: boolean }>;
  close(): Promise<void>;
}

class GcpKeyWrapper implements KeyWrapper {
  readonly provider = 'gcp' as const;
  private readonly aad = Buffer.from(MASTER_KEY_AAD, 'utf8');

  constructor(private readonly client: KeyManagementServiceClient) {}

  async wrap(key: string, plaintext: Buffer) {
    const [r] = await this.client.encrypt({
      name: key,
      plaintext,
      plaintextCrc32c: { value: crc32c(plaintext) },
      additionalAuthenticatedData: this.aad,
      additionalAuthenticatedDataCrc32c: { value: crc32c(this.aad) },
    });
    if (!r.name?.startsWith(`${key}/cryptoKeyVersions/`))
      throw new Error('GCP KMS encrypted with another key');
    if (r.verifiedPlaintextCrc32c !== true || r.verifiedAdditionalAuthenticatedDataCrc32c !== true)
      throw new Error('GCP KMS did not verify the request CRC32C');
    const ciphertext = Buffer.from(r.ciphertext as Uint8Array);
    if (Number(r.ciphertextCrc32c?.value) !== crc32c(ciphertext))
      throw new Error('GCP KMS ciphertext failed its CRC32C check');
    return { ciphertext, keyVersion: r.name };
  }

  async unwrap(key: string, ciphertext: Buffer) {
    const [r] = await this.client.decrypt({
      name: key,
      ciphertext,
      ciphertextCrc32c: { value: crc32c(ciphertext) },
      additionalAuthenticatedData: this.aad,
      additionalAuthenticatedDataCrc32c: { value: crc32c(this.aad) },
    });
    const plaintext = Buffer.from(r.plaintext as Uint8Array);
    if (Number(r.plaintextCrc32c?.value) !== crc32c(plaintext))
      throw new Error('GCP KMS plaintext failed its CRC32C check');
    return { plaintext, stale: r.usedPrimary === false };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

class AwsKeyWrapper implements KeyWrapper {
  readonly provider = 'aws' as const;
  private readonly context = { purpose: MASTER_KEY_AAD };

  constructor(
    private readonly sdk: typeof import('@aws-sdk/client-kms'),
    private readonly client: KMSClient,
  ) {}

  async wrap(key: string, plaintext: Buffer) {
    const out = await this.client.send(
      new this.sdk.EncryptCommand({ KeyId: key, Plaintext: plaintext, EncryptionContext: this.context }),
    );
    if (!out.CiphertextBlob || !out.KeyId) throw new Error('AWS KMS returned no ciphertext');
    return { ciphertext: Buffer.from(out.CiphertextBlob), keyVersion: out.KeyId };
  }

  async unwrap(key: string, ciphertext: Buffer) {
    // KeyId given: AWS refuses (IncorrectKeyException) a ciphertext of any other key
    const out = await this.client.send(
      new this.sdk.DecryptCommand({
        KeyId: key,
        CiphertextBlob: ciphertext,
        EncryptionContext: this.context,
      }),
    );
    if (!out.Plaintext) throw new Error('AWS KMS returned no plaintext');
    // AWS key rotation keeps every backing key: an old ciphertext never needs re-wrapping
    return { plaintext: Buffer.from(out.Plaintext), stale: false };
  }

  close(): Promise<void> {
    this.client.destroy();
    return Promise.resolve();
  }
}

/** The wrapper of the configured provider; its SDK is loaded here, not at import (ADR 0066). */
export async function createKeyWrapper(
  wrap: NonNullable<Config['masterKeyWrap']>,
  overrides: { gcp?: GcpClientOptions; aws?: KMSClientConfig } | undefined,
): Promise<KeyWrapper> {
  if (wrap.provider === 'gcp') return new GcpKeyWrapper(await gcpKmsClient(wrap.endpoint, overrides?.gcp));
  const { sdk, client } = await awsKmsClient({
    endpoint: wrap.endpoint,
    region: wrap.region,
    clientOptions: overrides?.aws,
  });
  return new AwsKeyWrapper(sdk, client);
}
