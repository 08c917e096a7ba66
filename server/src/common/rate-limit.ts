// Owns the per-API-key rate limit of the business API: a token bucket per key, in memory, per process.
// N service nodes therefore allow up to N times the budget per key; a shared store (e.g. the database or
// Redis) is future work. Time comes from the injected clock, so tests move a ManualClock instead of sleeping.
import type { RequestHandler } from 'express';
import type { Clock } from './clock';
import { AppError } from './errors';
import { type AppRequest, sendProblem } from './http';

export interface RateLimitPolicy {
  /** Bucket size: requests allowed in a burst. */
  limit: number;
  /** Seconds in which an empty bucket refills completely (limit / windowSeconds requests per second). */
  windowSeconds: number;
}

/** The /v1 budget per API key. */
export const DEFAULT_RATE_LIMIT: RateLimitPolicy = { limit: 100, windowSeconds: 10 };

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Whole requests left after this one. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** When refused: seconds until the next request is allowed (at least 1). */
  retryAfterSeconds: number;
}

/** Buckets kept before full (idle) ones are dropped; a full bucket is the same as no bucket. */
const PRUNE_ABOVE = 10_000;

/**
 * Token bucket in integer units: one token = windowMs units, and each millisecond adds `limit` units, so the
 * bucket (limit * windowMs units) refills in exactly one window without floating-point drift.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { level: number; at: number }>();
  private readonly windowMs: number;
  private readonly capacity: number;

  constructor(
    private readonly clock: Clock,
    readonly policy: RateLimitPolicy = DEFAULT_RATE_LIMIT,
  ) {
    this.windowMs = policy.windowSeconds * 1000;
    this.capacity = policy.limit * this.windowMs;
  }

  private levelAt(key: string, now: number): number {
    const b = this.buckets.get(key);
    if (!b) return this.capacity;
    const elapsed = Math.max(0, now - b.at);
    return Math.min(this.capacity, b.level + elapsed * this.policy.limit);
  }

  /** Takes one request from `key`'s bucket if it has one. */
  take(key: string): RateLimitDecision {
    const now = this.clock.now().getTime();
    let level = this.levelAt(key, now);
    const allowed = level >= this.windowMs;
    if (allowed) level -= this.windowMs;
    if (this.buckets.size >= PRUNE_ABOVE && !this.buckets.has(key)) this.prune(now);
    this.buckets.set(key, { level, at: now });
    const msUntil = (target: number) => Math.max(0, Math.ceil((target - level) / this.policy.limit));
    return {
      allowed,
      limit: this.policy.limit,
      remaining: Math.floor(level / this.windowMs),
      resetSeconds: Math.ceil(msUntil(this.capacity) / 1000),
      retryAfterSeconds: Math.max(1, Math.ceil(msUntil(this.windowMs) / 1000)),
    };
  }

  private prune(now: number): void {
    for (const key of [...this.buckets.keys()])
      if (this.levelAt(key, now) >= this.capacity) this.buckets.delete(key);
  }
}

/**
 * Runs after API-key authentication: every answer carries `RateLimit-Policy` and `RateLimit` (IETF httpapi
 * rate-limit headers, draft-07 field syntax); an empty bucket answers 429 `rate_limited` with `Retry-After`.
 */
export function rateLimitByApiKey(limiter: RateLimiter): RequestHandler {
  const policy = `${limiter.policy.limit};w=${limiter.policy.windowSeconds}`;
  return (req, res, next) => {
    const actor = (req as AppRequest).ctx.actor;
    if (actor.kind !== 'api_key') return next();
    const d = limiter.take(actor.apiKeyId);
    res.setHeader('RateLimit-Policy', policy);
    res.setHeader('RateLimit', `limit=${d.limit}, remaining=${d.remaining}, reset=${d.resetSeconds}`);
    if (d.allowed) return next();
    sendProblem(
      res,
      new AppError(
        'rate_limited',
        `This API key is limited to ${limiter.policy.limit} requests per ${limiter.policy.windowSeconds} s; retry after ${d.retryAfterSeconds} s.`,
        { extra: { retry_after: d.retryAfterSeconds } },
      ),
      (req as AppRequest).ctx.requestId,
    );
  };
}
