// Owns the refusal of a parameter an operation does not have (issue 29, ADR 0051): every `/v1` route with a
// body refuses an unknown one with 400 validation_failed naming it as `param`, as Stripe does, instead of
// silently dropping it. Routes with a JSON request contract refuse it through their strict zod schema; the
// pipeline refuses any field sent to a route that takes no body.
import { AppError } from './errors';

/** 400 `validation_failed` for a parameter the operation does not have. */
export function unknownParameter(name: string): AppError {
  const param = name.slice(0, 100);
  return new AppError(
    'validation_failed',
    `Received unknown parameter: ${param}. Check its spelling against the API reference; this operation does not accept it.`,
    { param },
  );
}

/** The first field of a JSON object body sent to a route without a request body (undefined: none). */
export function fieldOfBodyless(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  for (const k in body) return k;
  return undefined;
}
