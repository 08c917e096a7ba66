// Owns the AWS KMS adapter for the audit signature: Sign with MessageType DIGEST and ECDSA_SHA_256 (DER
// out) and GetPublicKey (DER SPKI). AWS asymmetric keys have no versions, so the kid is the key ARN that
// GetPublicKey reports (an alias in AWS_KMS_KEY_ID resolves to the key it points at when the process
// starts); rotation = a new key (alias switch) and a restart, and the JWKS keeps the old ARN.
import { GetPublicKeyCommand, KMSClient, type KMSClientConfig, SignCommand } from '@aws-sdk/client-kms';
import type { CloudSigner } from './cloud-signing';

export class AwsKmsSigner implements CloudSigner {
  readonly provider = 'aws' as const;
  private readonly client: KMSClient;

  constructor(
    private readonly keyId: string,
    opts: { endpoint?: string; region?: string; clientOptions?: KMSClientConfig } = {},
  ) {
    if (!keyId) throw new Error('AWS_KMS_KEY_ID is required for KMS_PROVIDER=aws');
    this.client = new KMSClient({
      ...(opts.region ? { region: opts.region } : {}),
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      ...opts.clientOptions,
    });
  }

  async describe(): Promise<{ kid: string; spki: Buffer }> {
    const out = await this.client.send(new GetPublicKeyCommand({ KeyId: this.keyId }));
    if (out.KeySpec !== 'ECC_NIST_P256' || out.KeyUsage !== 'SIGN_VERIFY')
      throw new Error(`AWS KMS key is ${out.KeySpec}/${out.KeyUsage}, not ECC_NIST_P256/SIGN_VERIFY`);
    if (!out.KeyId?.startsWith('arn:') || !out.PublicKey) throw new Error('AWS KMS returned no key ARN');
    return { kid: out.KeyId, spki: Buffer.from(out.PublicKey) };
  }

  async sign(kid: string, digest: Uint8Array): Promise<Uint8Array> {
    const out = await this.client.send(
      new SignCommand({
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
