// Owns the Google Cloud KMS adapter for the audit signature: asymmetricSign with digest.sha256 (the digest
// we computed, not the data) and getPublicKey (PEM), with the CRC32C integrity checks Google's samples make
// (request digest CRC, response name, verifiedDigestCrc32c, signature CRC). @google-cloud/kms 5.7.x: 6.x
// needs Node 22. An endpoint override (http://host:port) switches the client to its REST fallback
// (HTTP/1.1 JSON), which is how the test suite reaches its wire-protocol fake.
import { createPublicKey } from 'node:crypto';
import { crc32c } from '@aws-crypto/crc32c';
import type { KeyManagementServiceClient } from '@google-cloud/kms';
import type { CloudSigner } from './cloud-signing';

/** `projects/P/locations/L/keyRings/R/cryptoKeys/K/cryptoKeyVersions/N`: asymmetric keys have no primary. */
export const GCP_KEY_VERSION =
  /^projects\/[^/]+\/locations\/[^/]+\/keyRings\/[^/]+\/cryptoKeys\/[^/]+\/cryptoKeyVersions\/[1-9]\d*$/;

export type GcpClientOptions = ConstructorParameters<typeof KeyManagementServiceClient>[0];

/** Client options for an endpoint override: the REST fallback (HTTP/1.1 JSON) on that host and port. */
export function gcpEndpointOptions(endpoint: string | undefined): GcpClientOptions {
  if (!endpoint) return {};
  const u = new URL(endpoint);
  return {
    fallback: true,
    apiEndpoint: u.hostname,
    port: Number(u.port || (u.protocol === 'http:' ? 80 : 443)),
    protocol: u.protocol.replace(':', ''),
  } as GcpClientOptions;
}

/**
 * Google's KMS client. The SDK is loaded here, when a GCP key is configured, never at import: loading it (its
 * gRPC stack and protobuf descriptors) costs every process about a second of start-up (ADR 0066).
 */
export async function gcpKmsClient(
  endpoint: string | undefined,
  clientOptions: GcpClientOptions | undefined,
): Promise<KeyManagementServiceClient> {
  const { KeyManagementServiceClient } = await import('@google-cloud/kms');
  return new KeyManagementServiceClient({ ...gcpEndpointOptions(endpoint), ...clientOptions });
}

export class GcpKmsSigner implements CloudSigner {
  readonly provider = 'gcp' as const;

  private constructor(
    private readonly keyVersion: string,
    private readonly client: KeyManagementServiceClient,
  ) {}

  static async create(
    keyVersion: string,
    opts: { endpoint?: string; clientOptions?: GcpClientOptions } = {},
  ): Promise<GcpKmsSigner> {
    if (!GCP_KEY_VERSION.test(keyVersion))
      throw new Error('GCP_KMS_KEY must be a full cryptoKeyVersions resource name');
    return new GcpKmsSigner(keyVersion, await gcpKmsClient(opts.endpoint, opts.clientOptions));
  }

  async describe(): Promise<{ kid: string; spki: Buffer }> {
    const [pk] = await this.client.getPublicKey({ name: this.keyVersion });
    if (pk.name !== this.keyVersion) throw new Error('GCP KMS answered for another key version');
    if (pk.algorithm !== 'EC_SIGN_P256_SHA256' && pk.algorithm !== 12)
      throw new Error(`GCP KMS key version has algorithm ${String(pk.algorithm)}, not EC_SIGN_P256_SHA256`);
    if (!pk.pem) throw new Error('GCP KMS returned no public key');
    if (pk.pemCrc32c?.value != null && Number(pk.pemCrc32c.value) !== crc32c(Buffer.from(pk.pem, 'utf8')))
      throw new Error('GCP KMS public key failed its CRC32C check');
    const spki = createPublicKey(pk.pem).export({ type: 'spki', format: 'der' });
    return { kid: this.keyVersion, spki };
  }

  async sign(kid: string, digest: Uint8Array): Promise<Uint8Array> {
    const [r] = await this.client.asymmetricSign({
      name: kid,
      digest: { sha256: digest },
      digestCrc32c: { value: crc32c(digest) },
    });
    if (r.name !== kid) throw new Error('GCP KMS signed with another key version');
    if (r.verifiedDigestCrc32c !== true) throw new Error('GCP KMS did not verify the digest CRC32C');
    const sig = Buffer.from(r.signature as Uint8Array);
    if (Number(r.signatureCrc32c?.value) !== crc32c(sig))
      throw new Error('GCP KMS signature failed its CRC32C check');
    return sig;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
