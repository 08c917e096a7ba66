// The configuration every test node starts from: a loopback listener on `port`, its data dir, its database,
// quiet logs and a rate limit no suite reaches unless it sets its own. `env` adds or overrides variables.
import { type Config, configFrom } from '../../server/src/config/config';

export interface TestConfigInput {
  port: number;
  dataDir: string;
  /** mysql://…; undefined: the embedded engine (SQLite under dataDir). */
  databaseUrl: string | undefined;
  /** Public API origin; `http://127.0.0.1:<port>` by default. */
  baseUrl?: string;
  /** Variables added or overridden; an undefined value keeps the default above. */
  env?: Record<string, string | undefined>;
}

export function testConfig({ port, dataDir, databaseUrl, baseUrl, env = {} }: TestConfigInput): Config {
  return configFrom({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    BASE_URL: baseUrl ?? `http://127.0.0.1:${port}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    RATE_LIMIT: '100000/10',
    // issue 27 (ADR 0044): every suite runs on a pool of 2 with the strict single-connection check, so a code
    // path that takes a second connection inside a transaction fails the suite that reaches it
    DB_POOL_SIZE: '2',
    RELAY_DB_POOL_SIZE: '2',
    DB_TRANSITION_POOL_SIZE: '2',
    DB_STRICT_SINGLE_CONNECTION: 'true',
    ...Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)),
  } as never);
}

/**
 * The engine the API suites run on: MariaDB/MySQL by default, the embedded SQLite with TEST_ENGINE=embedded
 * (.ci/run runs a chosen set of API suites both ways). Only suites that talk to the service through its API
 * can run embedded: a suite that opens its own mysql connection cannot.
 */
export const testEngine = (): 'mysql' | 'embedded' =>
  process.env.TEST_ENGINE === 'embedded' ? 'embedded' : 'mysql';
