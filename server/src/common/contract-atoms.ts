// Owns the atoms the /v1 contracts share (sessions, audit records, webhook events): the timestamp format and
// the session id shape, on the ground floor so that every contract can use them without importing another's.
import { z } from 'zod';

export const timestamp = z.iso.datetime().describe('RFC 3339 timestamp in UTC with milliseconds.');
export const sessionId = z.string().regex(/^sess_[0-9a-z]+$/);
