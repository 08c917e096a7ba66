// Owns the contract of every error answer: RFC 9457 problem details with a code from the closed list.
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../common/errors';

const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

export const ProblemSchema = z
  .object({
    type: z
      .url()
      .describe('{base_url}/errors/<code>: the code’s entry in the error reference (GET /errors).'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().describe('Human-readable; may change. Match on `code`.'),
    code: z.enum(ERROR_CODE_LIST).describe('Stable machine-readable code (closed list).'),
    param: z.string().optional().describe('The input at fault, when one is.'),
    request_id: z.string().describe('Quote it to support.'),
    retry_after: z
      .number()
      .int()
      .optional()
      .describe('rate_limited, service_unavailable: seconds to wait (also Retry-After).'),
  })
  .strict()
  .meta({ title: 'Problem', description: 'RFC 9457 problem details (application/problem+json).' });
