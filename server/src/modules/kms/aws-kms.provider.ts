// Owns the AWS KMS adapter for the audit signature: Sign with MessageType DIGEST and ECDSA_SHA_256 (DER
// out) and GetPublicKey (DER SPKI). AWS asymmetric keys have no versions, so the kid is the key ARN that
// GetPublicKey reports (an alias in AWS_KMS_KEY_ID resolves to the key it points at when the process
// starts); rotation = a new key (alias switch) and a restart, and the JWKS keeps the old ARN.
import type { KMSClient, KMSClientConfig } from '@aws-sdk/client-kms';
import type { CloudSigner } from './cloud-signing';

type AwsKmsSdk = typeof import('@aws-sdk/client-kms');

/**
 * The AWS KMS SDK and a client. The SDK is loaded here, when an AWS key is configured, never at import: it
 * would cost every process its start-up time otherwise (ADR 0066).
 */
export async function awsKmsClient(opts: {
  endpoint?: string;
  region?: string;
  clientOptions?: KMSClientConfig;
}): Promise<{ sdk: AwsKmsSdk; client: KMSClient }> {
  const sdk = await import('@aws-sdk/client-kms');
  const client = new sdk.KMSClient({
    ...(opts.region ? { region: opts.region } : {}),
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    ...opts.clientOptions,
  });
  return { sdk, client };
}

export class AwsKmsSigner implements CloudSigner {
  readonly provider = 'aws' as const;

  private constructor(
    private readonly keyId: string,
    private readonly sdk: AwsKmsSdk,
    private readonly client: KMSClient,
  ) {}

  static async create(
    keyId: string,
    opts: { endpoint?: string; region?: string; clientOptions?: KMSClientConfig } = {},
  ): Promise<AwsKmsSigner> {
    if (!keyId) throw new Error('AWS_KMS_KEY_ID is required for KMS_PROVIDER=aws');
    const { sdk, client } = await awsKmsClient(opts);
    return new AwsKmsSigner(keyId, sdk, client);
  }

  async describe(): Promise<{ kid: string; spki: Buffer }> {
    const out = await this.client.send(new this.sdk.GetPublicKeyCommand({ KeyId: this.keyId }));
    if (out.KeySpec !== 'ECC_NIST_P256' || out.KeyUsage !== 'SIGN_VERIFY')
      throw new Error(`AWS KMS key is ${out.KeySpec}/${out.KeyUsage}, not ECC_NIST_P256/SIGN_VERIFY`);
    if (!out.KeyId?.startsWith('arn:') || !out.PublicKey) throw new Error('AWS KMS returned no key ARN');
    return { kid: out.KeyId, spki: Buffer.from(out.PublicKey) };
  }

  async sign(kid: string, digest: Uint8Array): Promise<Uint8Array> {
    const out = await this.client.send(
      new this.sdk.SignCommand({
        KeyId: kid,
        Message: digest,
        MessageType: 'DIGEST',
        SigningAlgorithm: 'ECDSA_SHA_256',
      }),
    );
    if (out.KeyId !== kid) throw new Error('AWS KMS signed with another key');
    if (out.SigningAlgorithm !== 'ECDSA_SHA_256' || !out.Signature)
      throw new Error('AWS KMS returned no ECDSA_SHA_256 signature');
    return out.Signature;
  }

  close(): Promise<void> {
    this.client.destroy();
    return Promise.resolve();
  }
}
