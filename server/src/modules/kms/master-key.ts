// Owns the service master key at start-up (ADR 0048): the 32-byte key that seals the local key versions
// (evidence key-encryption keys, the local audit key), webhook secrets, verifier keys and the binding key.
// With a cloud KMS wrapping key configured (GCP_KMS_WRAP_KEY / AWS_KMS_WRAP_KEY_ID) it exists in clear only in
// this process: DATA_DIR holds `master-key.wrapped.json`, its ciphertext under the KMS key (envelope
// encryption), unwrapped here at every start. Without one (development, tests) it is the clear file
// `local-kms-master.key`, and production refuses to start (assertProductionKeys). A node never makes up a new
// master key over a database that holds keys sealed under another one: it refuses to start instead.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import type { Logger } from '../../common/logger';
import type { Config } from '../../config/config';
import type { KmsClientOverrides } from './kms.factory';
import { KmsKeyVersionEntity } from './kms-key-version.entity';
import { loadOrCreateLocalMasterKey } from './local-kms.provider';
import { createKeyWrapper, type KeyWrapper } from './master-key-wrap';

export const CLEAR_MASTER_KEY_FILE = 'local-kms-master.key';
export const WRAPPED_MASTER_KEY_FILE = 'master-key.wrapped.json';

/** The wrapped master key as stored in DATA_DIR (no secret: the ciphertext opens only in the KMS). */
interface WrappedRecord {
  format: 'service-master-key/1';
  provider: 'gcp' | 'aws';
  /** The wrapping key as configured (GCP cryptoKey name, AWS key id, ARN or alias). */
  wrap_key: string;
  /** The version (GCP) or key ARN (AWS) that encrypted it. */
  key_version: string;
  ciphertext: string;
  /** HMAC-SHA256(master key, "check"), base64url: proves an unwrapped key is the one that was wrapped. */
  check: string;
  wrapped_at: string;
}

const WRAP_VARS = {
  gcp: 'GCP_KMS_WRAP_KEY=projects/…/locations/…/keyRings/…/cryptoKeys/… (a symmetric ENCRYPT_DECRYPT key)',
  aws: 'AWS_KMS_WRAP_KEY_ID=<key id, ARN or alias of a SYMMETRIC_DEFAULT key>',
};

/**
 * Production never starts on keys beside the service: neither the local KMS nor a clear master key file.
 * Called by the process entry (main.ts) before anything is created, so not even a clear file is written.
 */
export function assertProductionKeys(config: Config): void {
  if (config.appEnv !== 'production') return;
  if (config.kms.provider === 'local')
    throw new Error(
      'Refusing to start in production with the local KMS: its keys would sit in DATA_DIR beside the service. ' +
        `Configure a cloud KMS: KMS_PROVIDER=gcp with GCP_KMS_KEY and ${WRAP_VARS.gcp}, or KMS_PROVIDER=aws ` +
        `with AWS_KMS_KEY_ID and ${WRAP_VARS.aws} (README, Keys).`,
    );
  if (!config.masterKeyWrap)
    throw new Error(
      'Refusing to start in production with an unwrapped master key: it would be stored in clear in DATA_DIR. ' +
        `Configure the key that wraps it in the KMS: ${WRAP_VARS[config.kms.provider]} (README, Keys).`,
    );
}

const checkOf = (key: Buffer): string => createHmac('sha256', key).update('check').digest('base64url');

const exists = (file: string): boolean => fs.existsSync(file);

/** Refuses to make up a new master key when the database holds key material sealed under an earlier one. */
async function refuseNewKeyOverSealedData(ds: DataSource, dataDir: string): Promise<void> {
  const sealed = await ds
    .getRepository(KmsKeyVersionEntity)
    .createQueryBuilder('k')
    .where("k.private_key_enc NOT LIKE 'external:%'")
    .getCount();
  if (sealed > 0)
    throw new Error(
      `Refusing to start: the database holds ${sealed} key version(s) sealed under a master key, and ${dataDir} ` +
        `has neither ${WRAPPED_MASTER_KEY_FILE} nor ${CLEAR_MASTER_KEY_FILE}. A new master key would make them ` +
        'unreadable: restore the master key file of this database (every node of one database shares it).',
    );
}

/** The master key for this process (see the module comment). */
export async function loadMasterKey(deps: {
  config: Config;
  ds: DataSource;
  logger?: Logger;
  overrides?: KmsClientOverrides;
}): Promise<Buffer> {
  const { config, ds, logger } = deps;
  const dataDir = config.dataDir;
  const clearFile = path.join(dataDir, CLEAR_MASTER_KEY_FILE);
  const wrappedFile = path.join(dataDir, WRAPPED_MASTER_KEY_FILE);
  const wrap = config.masterKeyWrap;
  if (!wrap) {
    if (exists(wrappedFile)) {
      const rec = readRecord(wrappedFile);
      throw new Error(
        `Refusing to start: the master key is wrapped by ${rec.provider} KMS key ${rec.wrap_key} ` +
          `(${wrappedFile}); configure KMS_PROVIDER=${rec.provider} and ${WRAP_VARS[rec.provider]} to unwrap it.`,
      );
    }
    if (!exists(clearFile)) await refuseNewKeyOverSealedData(ds, dataDir);
    return loadOrCreateLocalMasterKey(dataDir);
  }
  const wrapper = await createKeyWrapper(wrap, deps.overrides);
  try {
    for (let attempt = 0; ; attempt++) {
      if (exists(wrappedFile)) return await unwrapStored(wrapper, wrap, wrappedFile, logger);
      // First start with a wrapping key: wrap the clear key of earlier starts, or make the first one.
      const migrating = exists(clearFile);
      if (!migrating) await refuseNewKeyOverSealedData(ds, dataDir);
      const key = migrating ? loadOrCreateLocalMasterKey(dataDir) : randomBytes(32);
      const rec = await wrapRecord(wrapper, wrap.key, key);
      // 'wx': nodes starting together agree on the first file written; the others unwrap it
      if (!writeRecord(wrappedFile, rec, 'wx')) {
        if (attempt > 0) throw new Error(`${wrappedFile} keeps changing; refusing to start`);
        continue;
      }
      if (migrating) {
        fs.rmSync(clearFile, { force: true });
        logger?.warn('master key wrapped in the KMS; the clear key file was removed', {
          wrap_key: wrap.key,
          file: wrappedFile,
        });
      }
      return key;
    }
  } finally {
    await wrapper.close();
  }
}

/** Unwraps the stored master key; re-wraps it after a rotation (another key configured, or a new primary). */
async function unwrapStored(
  wrapper: KeyWrapper,
  wrap: NonNullable<Config['masterKeyWrap']>,
  file: string,
  logger: Logger | undefined,
): Promise<Buffer> {
  const rec = readRecord(file);
  const switching = rec.provider !== wrap.provider || rec.wrap_key !== wrap.key;
  if (switching && (rec.provider !== wrap.provider || wrap.previousKey !== rec.wrap_key))
    throw new Error(
      `Refusing to start: the master key is wrapped by ${rec.provider} KMS key ${rec.wrap_key}, not by the ` +
        `configured ${wrap.key}. Starting with another wrapping key would lose every sealed key. To rotate to ` +
        `${wrap.key}, start once with MASTER_KEY_PREVIOUS_WRAP_KEY=${rec.wrap_key} (same provider).`,
    );
  let out: { plaintext: Buffer; stale: boolean };
  try {
    out = await wrapper.unwrap(rec.wrap_key, Buffer.from(rec.ciphertext, 'base64'));
  } catch (e) {
    throw new Error(
      `Refusing to start: the master key in ${file} could not be unwrapped with ${rec.provider} KMS key ` +
        `${rec.wrap_key} (${e instanceof Error ? e.message : String(e)}). Without it every sealed key is lost: ` +
        'check the key, its permissions and the endpoint; never delete the file.',
    );
  }
  const key = out.plaintext;
  const check = Buffer.from(checkOf(key));
  const stored = Buffer.from(rec.check);
  if (key.length !== 32 || check.length !== stored.length || !timingSafeEqual(check, stored))
    throw new Error(
      `Refusing to start: the key unwrapped from ${file} is not the master key that was wrapped`,
    );
  if (switching || out.stale) {
    writeRecord(file, await wrapRecord(wrapper, wrap.key, key), 'replace');
    logger?.info('master key re-wrapped', { from: rec.key_version, to: wrap.key });
  }
  return key;
}

async function wrapRecord(wrapper: KeyWrapper, wrapKey: string, key: Buffer): Promise<WrappedRecord> {
  const { ciphertext, keyVersion } = await wrapper.wrap(wrapKey, key);
  // proven before anything is stored or removed: the ciphertext opens to this key
  const back = await wrapper.unwrap(wrapKey, ciphertext);
  if (!back.plaintext.equals(key))
    throw new Error('the KMS did not unwrap what it wrapped; refusing to start');
  return {
    format: 'service-master-key/1',
    provider: wrapper.provider,
    wrap_key: wrapKey,
    key_version: keyVersion,
    ciphertext: ciphertext.toString('base64'),
    check: checkOf(key),
    wrapped_at: new Date().toISOString(),
  };
}

function readRecord(file: string): WrappedRecord {
  let rec: WrappedRecord;
  try {
    rec = JSON.parse(fs.readFileSync(file, 'utf8')) as WrappedRecord;
  } catch (e) {
    throw new Error(`Refusing to start: ${file} is not readable JSON (${String(e)})`);
  }
  if (rec?.format !== 'service-master-key/1' || !rec.ciphertext || !rec.wrap_key || !rec.check)
    throw new Error(`Refusing to start: ${file} is not a wrapped master key of this service`);
  return rec;
}

/** Writes the record (mode 0600); 'wx' returns false when the file exists, 'replace' swaps it atomically. */
function writeRecord(file: string, rec: WrappedRecord, mode: 'wx' | 'replace'): boolean {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const text = `${JSON.stringify(rec, null, 2)}\n`;
  if (mode === 'wx') {
    try {
      fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  }
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return true;
}
