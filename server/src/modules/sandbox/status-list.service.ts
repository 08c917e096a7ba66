// Owns the sandbox issuer's Token Status Lists: rows in status_list (one byte per entry, base64, uncompressed)
// and their signed `statuslist+jwt` form (built with @sd-jwt/jwt-status-list, signed with the issuer key).
import { Jwt } from '@sd-jwt/core';
import { ES256 } from '@sd-jwt/crypto-nodejs';
import { type BitsPerStatus, createHeaderAndPayload, StatusList } from '@sd-jwt/jwt-status-list';
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import { isMysql, transactionWithRetry } from '../../db/data-source';
import { StatusListEntity } from './status-list.entity';

/** Lifetime of a signed status list token, and the caching hint (ttl) given to verifiers, in seconds. */
const TOKEN_LIFETIME_S = 3600;
const TOKEN_TTL_S = 300;

const decode = (row: StatusListEntity): number[] => [...Buffer.from(row.statuses, 'base64')];
const encode = (statuses: number[]): string => Buffer.from(statuses).toString('base64');

export class StatusListService {
  constructor(
    private readonly ds: DataSource,
    private readonly clock: Clock,
  ) {}

  /** Creates the list if missing (safe under concurrent starts) and keeps its issuer current. */
  async ensure(id: string, issuer: string, bits: BitsPerStatus, size: number): Promise<void> {
    await this.ds
      .createQueryBuilder()
      .insert()
      .into(StatusListEntity)
      .values({
        id,
        issuer,
        bits,
        size,
        nextIndex: 0,
        statuses: encode(new Array(size).fill(0)),
        updatedAt: this.clock.now(),
      })
      .orIgnore()
      .execute();
    await this.ds.getRepository(StatusListEntity).update({ id }, { issuer });
  }

  /** Sets one entry and moves next_index past it (indices here are assigned by the caller). */
  async setStatus(id: string, idx: number, value: number): Promise<void> {
    await transactionWithRetry(this.ds, async (m) => {
      // Row lock on MySQL; SQLite serialises writers itself and has no FOR UPDATE.
      const lock = isMysql(this.ds) ? { mode: 'pessimistic_write' as const } : undefined;
      const row = await m.getRepository(StatusListEntity).findOne({ where: { id }, lock });
      if (!row) throw new Error(`status list ${id} does not exist`);
      const statuses = decode(row);
      const list = new StatusList(statuses, row.bits as BitsPerStatus);
      list.setStatus(idx, value); // validates the index and the value against bits
      await m.getRepository(StatusListEntity).update(
        { id },
        {
          statuses: encode(list.statusList),
          nextIndex: Math.max(row.nextIndex, idx + 1),
          updatedAt: this.clock.now(),
        },
      );
    });
  }

  /** The current statuses of a list and its bits per entry (not_found for an unknown list). */
  async current(id: string): Promise<{ list: StatusList; bits: BitsPerStatus }> {
    const row = await this.ds.getRepository(StatusListEntity).findOneBy({ id });
    if (!row) throw new AppError('not_found', 'No such status list.');
    const bits = row.bits as BitsPerStatus;
    return { list: new StatusList(decode(row), bits), bits };
  }

  /** The current list as a signed status list token whose `sub` is `uri`. */
  async signedToken(id: string, uri: string, issuerPrivateJwk: object): Promise<string> {
    const row = await this.ds.getRepository(StatusListEntity).findOneBy({ id });
    if (!row) throw new AppError('not_found', 'No such status list.');
    const list = new StatusList(decode(row), row.bits as BitsPerStatus);
    const iat = Math.floor(this.clock.now().getTime() / 1000);
    const { header, payload } = createHeaderAndPayload(
      list,
      { sub: uri, iat, exp: iat + TOKEN_LIFETIME_S, ttl: TOKEN_TTL_S },
      { alg: 'ES256', typ: 'statuslist+jwt' },
    );
    return new Jwt({ header, payload }).sign(await ES256.getSigner(issuerPrivateJwk));
  }
}
