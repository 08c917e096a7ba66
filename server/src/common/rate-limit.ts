// Owns the per-API-key rate limit of the business API, on rate-limiter-flexible: a fixed window per key
// (`limit` requests per `windowSeconds`), counted in memory per process by default or in Redis when
// REDIS_URL is set, so every node draws on one budget per key. The window a request falls in comes from the
// injected clock (it is part of the counter's key), so tests move a ManualClock instead of sleeping; the
// store's own expiry (real time) only garbage-collects old windows. With Redis, a memory limiter insures
// against a Redis outage: each node then limits on its own until Redis is back (ADR 0016).
import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { Clock } from './clock';
import { AppError } from './errors';
import { type AppRequest, sendProblem } from './http';

/** Where the rate-limit headers of an answer go: an HTTP response, or the /v1 pipeline's header list. */
export interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

export interface RateLimitPolicy {
  /** Requests allowed per window. */
  limit: number;
  /** Window length in seconds (windows start at multiples of it on the clock). */
  windowSeconds: number;
}

/** The /v1 budget per API key. */
export const DEFAULT_RATE_LIMIT: RateLimitPolicy = { limit: 100, windowSeconds: 10 };

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Whole requests left after this one. */
  remaining: number;
  /** Seconds until the window ends and the whole budget is back. */
  resetSeconds: number;
  /** When refused: seconds until the next request is allowed (at least 1). */
  retryAfterSeconds: number;
}

/** Where the counters live: this process (default) or a Redis shared by every node. */
export interface RateLimitStore {
  redis?: Redis;
  /** Key prefix in the store (deployments or tests sharing one Redis keep apart by prefix). */
  keyPrefix?: string;
}

export class RateLimiter {
  private readonly windowMs: number;
  private readonly limiter: RateLimiterAbstract;

  constructor(
    private readonly clock: Clock,
    readonly policy: RateLimitPolicy = DEFAULT_RATE_LIMIT,
    store: RateLimitStore = {},
  ) {
    this.windowMs = policy.windowSeconds * 1000;
    const keyPrefix = `${store.keyPrefix ?? 'rl'}:api`;
    // Counters outlive their window by a margin: the window is chosen by the injected clock, the expiry
    // runs on real time, and a counter must not vanish while its window is still current.
    const duration = policy.windowSeconds * 2 + 60;
    const memory = new RateLimiterMemory({ keyPrefix, points: policy.limit, duration });
    this.limiter = store.redis
      ? new RateLimiterRedis({
          storeClient: store.redis,
          keyPrefix,
          points: policy.limit,
          duration,
          insuranceLimiter: memory,
        })
      : memory;
  }

  /** Takes one request from `key`'s budget in the current window if there is one left. */
  async take(key: string): Promise<RateLimitDecision> {
    const now = this.clock.now().getTime();
    const window = Math.floor(now / this.windowMs);
    const resetSeconds = Math.max(1, Math.ceil(((window + 1) * this.windowMs - now) / 1000));
    let res: RateLimiterRes;
    let allowed = true;
    try {
      res = await this.limiter.consume(`${key}:${window}`, 1);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      res = e;
      allowed = false;
    }
    return {
      allowed,
      limit: this.policy.limit,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds,
      retryAfterSeconds: resetSeconds,
    };
  }
}

/**
 * Takes one request from an API key's budget: every answer carries `RateLimit-Policy` and `RateLimit` (IETF
 * httpapi rate-limit headers, draft-07 field syntax), set here on `res`; a spent budget throws 429
 * `rate_limited` (its problem carries `retry_after`, sent as `Retry-After`). Used by the Express middleware
 * below (GraphQL) and by the /v1 pipeline (app/pipeline.ts).
 */
export function apiKeyBudget(limiter: RateLimiter): (apiKeyId: string, res: HeaderSink) => Promise<void> {
  const policy = `${limiter.policy.limit};w=${limiter.policy.windowSeconds}`;
  return async (apiKeyId, res) => {
    const d = await limiter.take(apiKeyId);
    res.setHeader('RateLimit-Policy', policy);
    res.setHeader('RateLimit', `limit=${d.limit}, remaining=${d.remaining}, reset=${d.resetSeconds}`);
    if (!d.allowed)
      throw new AppError(
        'rate_limited',
        `This API key is limited to ${limiter.policy.limit} requests per ${limiter.policy.windowSeconds} s; retry after ${d.retryAfterSeconds} s.`,
        { extra: { retry_after: d.retryAfterSeconds } },
      );
  };
}

/** Runs after API-key authentication (apiKeyBudget as Express middleware; other actors pass). */
export function rateLimitByApiKey(limiter: RateLimiter): RequestHandler {
  const take = apiKeyBudget(limiter);
  return (req, res, next) => {
    const actor = (req as AppRequest).ctx.actor;
    if (actor.kind !== 'api_key') return next();
    take(actor.apiKeyId, res).then(
      () => next(),
      (e: unknown) =>
        e instanceof AppError && e.code === 'rate_limited'
          ? sendProblem(res, e, (req as AppRequest).ctx.requestId) // answered here, never another handler's
          : next(e),
    );
  };
}
