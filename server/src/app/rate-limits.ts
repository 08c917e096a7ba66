// The rate limiter of a node: shared counters in Redis when REDIS_URL is set (ADR 0016), in memory otherwise.
import { Redis } from 'ioredis';
import type { Clock } from '../common/clock';
import type { Logger } from '../common/logger';
import { RateLimiter } from '../common/rate-limit';
import type { Config } from '../config/config';

/** The limiter and how to let go of its Redis connection (shutdown). */
export async function createRateLimiter(
  config: Config,
  clock: Clock,
  logger: Logger,
): Promise<{ limiter: RateLimiter; disconnect(): void }> {
  // Commands fail fast while Redis is away (no offline queue), and the limiter's memory insurance answers instead.
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true })
    : undefined;
  redis?.on('error', (e: Error) => logger.warn('redis unavailable', { error: e.message }));
  await redis?.connect().catch(() => {}); // logged above; ioredis keeps reconnecting
  const limiter = new RateLimiter(clock, config.rateLimit, { redis, keyPrefix: config.rateLimitKeyPrefix });
  return { limiter, disconnect: () => redis?.disconnect() };
}
