// Owns the service configuration: the only module that reads process.env. Validated once, frozen.
import path from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1')
  .optional();

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  APP_ENV: z.enum(['development', 'production']).default('development'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^mysql:\/\//, 'DATABASE_URL must be a mysql:// URL')
    .optional(),
  // database pool (ADR 0044): connections per node, the relay's own pool, and the bounds on every wait
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(20),
  RELAY_DB_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(6),
  // the session transitions' own pool (ADR 0058 amendment): only their short transactions run on it, while
  // every other statement of the same requests (their reads before and after the unit) runs on the API's
  // pool, so it needs a fraction of DB_POOL_SIZE
  DB_TRANSITION_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  DB_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(10_000),
  DB_QUERY_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  DB_STRICT_SINGLE_CONNECTION: bool,
  BASE_URL: z.url().optional(),
  HOSTED_URL: z.url().optional(),
  HOSTED_WEB_DIST: z.string().optional(),
  KMS_KEY_RING: z
    .string()
    // not a cloud resource name: a kid of the local provider must never pass for a Google Cloud key (ADR 0048)
    .default('local/cryptoKeys/audit-signing'),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool,
  /** JSON file of ETSI trust lists to configure at start (ADR 0036). */
  TRUST_LISTS_FILE: z.string().optional(),
  /** PEM file of registrar trust anchors for imported registration certificates (ADR 0040). */
  REGISTRATION_CERT_ANCHORS_FILE: z.string().optional(),
  /** Production requests carry the business's imported registration certificate in verifier_info. */
  VERIFIER_INFO_PRODUCTION: bool,
  SEED_SANDBOX: bool,
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  RATE_LIMIT: z
    .string()
    .regex(/^[1-9]\d*\/[1-9]\d*$/, 'RATE_LIMIT must be <requests>/<seconds>, e.g. 100/10')
    .default('100/10'),
  // ops (issue 11): audit signing in a cloud KMS, shared rate limits, metrics
  KMS_PROVIDER: z.enum(['local', 'gcp', 'aws']).default('local'),
  GCP_KMS_KEY: z.string().optional(),
  GCP_KMS_ENDPOINT: z.url().optional(),
  AWS_KMS_KEY_ID: z.string().optional(),
  AWS_KMS_ENDPOINT: z.url().optional(),
  AWS_REGION: z.string().optional(),
  // keys in the KMS (ADR 0048): the service master key wrapped by a symmetric key of the configured cloud KMS
  GCP_KMS_WRAP_KEY: z
    .string()
    .regex(
      /^projects\/[^/]+\/locations\/[^/]+\/keyRings\/[^/]+\/cryptoKeys\/[^/]+$/,
      'GCP_KMS_WRAP_KEY must be a cryptoKeys resource name (no version): projects/P/locations/L/keyRings/R/cryptoKeys/K',
    )
    .optional(),
  AWS_KMS_WRAP_KEY_ID: z.string().optional(),
  /** The wrapping key the master key was wrapped under before a switch to another key (rotation). */
  MASTER_KEY_PREVIOUS_WRAP_KEY: z.string().optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'REDIS_URL must be a redis:// or rediss:// URL')
    .optional(),
  RATE_LIMIT_KEY_PREFIX: z
    .string()
    .regex(/^[\w:.-]{1,64}$/)
    .default('rl'),
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
  // boundaries (issue 7): how long a session may wait at a gate before session.decision_due (ADR 0008)
  DECISION_DUE_HOURS: z.coerce.number().int().min(1).max(720).default(72),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'SMTP_URL must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().default('Credential Verification <no-reply@localhost>'),
  // tracing (issue 21): off unless an OTLP/HTTP endpoint is configured (the standard OpenTelemetry variables)
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_SERVICE_NAME: z
    .string()
    .regex(/^[\w.-]{1,64}$/)
    .default('credential-verification-service'),
});

export type Environment = 'sandbox' | 'production';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly appEnv: 'development' | 'production';
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  /** The database pool and the bounds on its waits (ADR 0044). */
  readonly db: DbPoolConfig;
  /** {base_url}: the API host, no trailing slash. */
  readonly baseUrl: string;
  /** {hosted_url}: the host of the hosted session page, no trailing slash. */
  readonly hostedUrl: string;
  readonly hostedWebDist: string;
  /** Resource-name prefix of the audit signing key; versions are `<ring>/cryptoKeyVersions/<n>`. */
  readonly kmsKeyRing: string;
  /** Webhook targets on loopback/private networks: allowed only for sandbox endpoints in development. */
  readonly webhookAllowPrivateTargets: boolean;
  /** ETSI trust lists configured at start (JSON array; ADR 0036); the operator CLI adds more. */
  readonly trustListsFile: string | undefined;
  /** Registrar trust anchors (PEM bundle) that imported registration certificates must chain to (ADR 0040). */
  readonly registrationCertAnchorsFile: string | undefined;
  /** Off by default: production requests carry no verifier_info unless the operator turns this on. */
  readonly verifierInfoProduction: boolean;
  readonly seedSandbox: boolean;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Per-API-key budget of /v1 requests: `limit` requests, refilled over `windowSeconds` (token bucket). */
  readonly rateLimit: { readonly limit: number; readonly windowSeconds: number };
  // ops (issue 11)
  /** Where the audit signing key lives; evidence encryption stays local with every provider. */
  readonly kms:
    | { readonly provider: 'local' }
    | { readonly provider: 'gcp'; readonly keyVersion: string; readonly endpoint?: string }
    | {
        readonly provider: 'aws';
        readonly keyId: string;
        readonly endpoint?: string;
        readonly region?: string;
      };
  /**
   * The cloud KMS key that wraps the service master key (envelope encryption, ADR 0048); undefined: the master
   * key is a clear file in DATA_DIR (development and tests only: production refuses to start).
   */
  readonly masterKeyWrap:
    | {
        readonly provider: 'gcp' | 'aws';
        readonly key: string;
        readonly previousKey?: string;
        readonly endpoint?: string;
        readonly region?: string;
      }
    | undefined;
  /** Shared rate-limit store; unset = per-process memory. */
  readonly redisUrl: string | undefined;
  /** Prefix of the rate-limit keys in Redis (several deployments or tests may share one Redis). */
  readonly rateLimitKeyPrefix: string;
  /** When set, /metrics requires `Authorization: Bearer <token>`; unset, /metrics is public. */
  readonly metricsToken: string | undefined;
  /** Hours a session may wait in awaiting_decision before its decision is due (reminder webhook). */
  readonly decisionDueHours: number;
  /** Outgoing mail through SMTP (nodemailer); unset: .eml files under DATA_DIR/mail (modules/mail). */
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  /** OpenTelemetry tracing to an OTLP/HTTP collector; undefined = off (no spans are recorded). */
  readonly tracing: { readonly endpoint: string; readonly serviceName: string } | undefined;
}

export interface DbPoolConfig {
  /** Connections of the API's pool on this node (MySQL; DB_POOL_SIZE). */
  readonly poolSize: number;
  /** Connections of the webhook relay's own pool on this node (MySQL; RELAY_DB_POOL_SIZE). */
  readonly relayPoolSize: number;
  /** Connections of the session transitions' pool on this node (MySQL; DB_TRANSITION_POOL_SIZE, ADR 0058). */
  readonly transitionPoolSize: number;
  /** Longest wait for a free connection before 503 service_unavailable (both engines). */
  readonly acquireTimeoutMs: number;
  /** Longest a single statement may run (MySQL; 0: unbounded). Migrations are not bounded. */
  readonly queryTimeoutMs: number;
  /** Test mode: code inside a transaction asking the same pool for a second connection throws. */
  readonly strictSingleConnection: boolean;
}

const stripSlash = (u: string) => u.replace(/\/+$/, '');

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${lines}`);
  }
  return buildConfig(parsed.data);
}

/** Builds a config from explicit values (tests), applying the same defaults and rules. */
export function configFrom(values: Partial<z.input<typeof schema>>): Config {
  const str: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(values)) str[k] = v === undefined ? undefined : String(v);
  return loadConfig(str);
}

function buildConfig(v: z.output<typeof schema>): Config {
  const baseUrl = stripSlash(v.BASE_URL ?? `http://localhost:${v.PORT}`);
  const hostedUrl = stripSlash(v.HOSTED_URL ?? baseUrl);
  if (v.APP_ENV === 'production' && v.WEBHOOK_ALLOW_PRIVATE_TARGETS) {
    throw new Error('Invalid configuration:\n  WEBHOOK_ALLOW_PRIVATE_TARGETS cannot be true in production');
  }
  return Object.freeze({
    port: v.PORT,
    host: v.HOST,
    appEnv: v.APP_ENV,
    dataDir: path.resolve(v.DATA_DIR),
    databaseUrl: v.DATABASE_URL,
    db: Object.freeze({
      poolSize: v.DB_POOL_SIZE,
      relayPoolSize: v.RELAY_DB_POOL_SIZE,
      transitionPoolSize: v.DB_TRANSITION_POOL_SIZE,
      acquireTimeoutMs: v.DB_ACQUIRE_TIMEOUT_MS,
      queryTimeoutMs: v.DB_QUERY_TIMEOUT_MS,
      strictSingleConnection: v.DB_STRICT_SINGLE_CONNECTION ?? false,
    }),
    baseUrl,
    hostedUrl,
    hostedWebDist: path.resolve(
      v.HOSTED_WEB_DIST ??
        path.join(path.dirname(new URL(import.meta.url).pathname), '../../../hosted-web/dist'),
    ),
    kmsKeyRing: v.KMS_KEY_RING,
    webhookAllowPrivateTargets: v.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? v.APP_ENV === 'development',
    trustListsFile: v.TRUST_LISTS_FILE ? path.resolve(v.TRUST_LISTS_FILE) : undefined,
    registrationCertAnchorsFile: v.REGISTRATION_CERT_ANCHORS_FILE
      ? path.resolve(v.REGISTRATION_CERT_ANCHORS_FILE)
      : undefined,
    verifierInfoProduction: v.VERIFIER_INFO_PRODUCTION ?? false,
    seedSandbox: v.SEED_SANDBOX ?? v.APP_ENV === 'development',
    logLevel: v.LOG_LEVEL,
    rateLimit: Object.freeze({
      limit: Number(v.RATE_LIMIT.split('/')[0]),
      windowSeconds: Number(v.RATE_LIMIT.split('/')[1]),
    }),
    kms: kmsConfig(v),
    masterKeyWrap: masterKeyWrapConfig(v),
    redisUrl: v.REDIS_URL,
    rateLimitKeyPrefix: v.RATE_LIMIT_KEY_PREFIX,
    metricsToken: v.METRICS_TOKEN,
    decisionDueHours: v.DECISION_DUE_HOURS,
    smtpUrl: v.SMTP_URL,
    mailFrom: v.MAIL_FROM,
    tracing: v.OTEL_EXPORTER_OTLP_ENDPOINT
      ? Object.freeze({
          endpoint: stripSlash(v.OTEL_EXPORTER_OTLP_ENDPOINT),
          serviceName: v.OTEL_SERVICE_NAME,
        })
      : undefined,
  });
}

function kmsConfig(v: z.output<typeof schema>): Config['kms'] {
  if (v.KMS_PROVIDER === 'gcp') {
    if (!v.GCP_KMS_KEY)
      throw new Error('Invalid configuration:\n  GCP_KMS_KEY is required when KMS_PROVIDER=gcp');
    return Object.freeze({ provider: 'gcp', keyVersion: v.GCP_KMS_KEY, endpoint: v.GCP_KMS_ENDPOINT });
  }
  if (v.KMS_PROVIDER === 'aws') {
    if (!v.AWS_KMS_KEY_ID)
      throw new Error('Invalid configuration:\n  AWS_KMS_KEY_ID is required when KMS_PROVIDER=aws');
    return Object.freeze({
      provider: 'aws',
      keyId: v.AWS_KMS_KEY_ID,
      endpoint: v.AWS_KMS_ENDPOINT,
      region: v.AWS_REGION,
    });
  }
  return Object.freeze({ provider: 'local' });
}

function masterKeyWrapConfig(v: z.output<typeof schema>): Config['masterKeyWrap'] {
  const key =
    v.KMS_PROVIDER === 'gcp'
      ? v.GCP_KMS_WRAP_KEY
      : v.KMS_PROVIDER === 'aws'
        ? v.AWS_KMS_WRAP_KEY_ID
        : undefined;
  if ((v.GCP_KMS_WRAP_KEY || v.AWS_KMS_WRAP_KEY_ID) && !key)
    throw new Error(
      'Invalid configuration:\n  GCP_KMS_WRAP_KEY / AWS_KMS_WRAP_KEY_ID wrap the master key in the configured KMS: set KMS_PROVIDER=gcp or aws to match',
    );
  if (v.MASTER_KEY_PREVIOUS_WRAP_KEY && !key)
    throw new Error(
      'Invalid configuration:\n  MASTER_KEY_PREVIOUS_WRAP_KEY needs a wrapping key to rotate to',
    );
  if (!key || (v.KMS_PROVIDER !== 'gcp' && v.KMS_PROVIDER !== 'aws')) return undefined;
  return Object.freeze({
    provider: v.KMS_PROVIDER,
    key,
    ...(v.MASTER_KEY_PREVIOUS_WRAP_KEY ? { previousKey: v.MASTER_KEY_PREVIOUS_WRAP_KEY } : {}),
    ...(v.KMS_PROVIDER === 'gcp'
      ? { endpoint: v.GCP_KMS_ENDPOINT }
      : { endpoint: v.AWS_KMS_ENDPOINT, region: v.AWS_REGION }),
  });
}

/** Masks a secret-bearing value for logs: keeps a short prefix only. */
export function mask(value: string, keep = 6): string {
  return value.length <= keep ? '***' : `${value.slice(0, keep)}***`;
}
