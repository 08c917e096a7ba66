// Owns the record of the URLs a running service builds its links with (issue 29, ADR 0051): the service writes
// `DATA_DIR/service-urls.json` when it listens, and the operator CLI, run beside it on the same data directory,
// builds its links (invitations it prints and mails) with them instead of its own environment's default
// (`http://localhost:3000`, wrong for a service on another port). Without BASE_URL and without a record the
// CLI refuses to guess.
import fs from 'node:fs';
import path from 'node:path';
import { type Config, loadConfig } from './config';

export const SERVICE_URLS_FILE = 'service-urls.json';

export interface RecordedServiceUrls {
  base_url: string;
  hosted_url: string;
  recorded_at: string;
}

/** Written by a listening service (atomically: a reader never sees half a file). Best effort: never fatal. */
export function recordServiceUrls(config: Config, now: Date): void {
  const rec: RecordedServiceUrls = {
    base_url: config.baseUrl,
    hosted_url: config.hostedUrl,
    recorded_at: now.toISOString(),
  };
  const file = path.join(config.dataDir, SERVICE_URLS_FILE);
  try {
    fs.mkdirSync(config.dataDir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(rec, null, 2)}\n`);
    fs.renameSync(tmp, file);
  } catch {
    // a read-only data directory: the operator then needs BASE_URL, and says so
  }
}

/** The URLs a service recorded in `dataDir`, or undefined (none, or not a record this code wrote). */
export function readServiceUrls(dataDir: string): RecordedServiceUrls | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(path.join(dataDir, SERVICE_URLS_FILE), 'utf8'));
  } catch {
    return undefined;
  }
  const r = raw as Partial<RecordedServiceUrls> | null;
  const isUrl = (u: unknown): u is string => typeof u === 'string' && URL.canParse(u);
  if (!r || !isUrl(r.base_url) || !isUrl(r.hosted_url)) return undefined;
  return { base_url: r.base_url, hosted_url: r.hosted_url, recorded_at: String(r.recorded_at ?? '') };
}

/**
 * The operator CLI's config: BASE_URL (and HOSTED_URL) from its environment when set, else the URLs the
 * service sharing its DATA_DIR recorded; neither: an error that says what to do. `warnings` tells the operator
 * when an explicit BASE_URL differs from the recorded one (links would point elsewhere than the service's).
 */
export function loadOperatorConfig(env: Record<string, string | undefined>): {
  config: Config;
  warnings: string[];
} {
  const set = (k: string) => (env[k] ?? '').trim() !== '';
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const recorded = readServiceUrls(dataDir);
  if (set('BASE_URL')) {
    const config = loadConfig(env);
    const warnings =
      recorded && recorded.base_url !== config.baseUrl
        ? [
            `BASE_URL (${config.baseUrl}) is not the base URL the service in ${dataDir} recorded (${recorded.base_url}); links use BASE_URL.`,
          ]
        : [];
    return { config, warnings };
  }
  if (!recorded)
    throw new Error(
      `The service's base URL is unknown, so links would point nowhere: set BASE_URL to the URL the service ` +
        `answers on, or run this beside a service that has started with DATA_DIR=${dataDir} ` +
        `(it records its URLs in ${path.join(dataDir, SERVICE_URLS_FILE)}).`,
    );
  const config = loadConfig({
    ...env,
    BASE_URL: recorded.base_url,
    HOSTED_URL: set('HOSTED_URL') ? env.HOSTED_URL : recorded.hosted_url,
  });
  return { config, warnings: [] };
}
