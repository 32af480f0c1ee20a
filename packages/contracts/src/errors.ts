import { z } from 'zod';
import { openEnum } from './schema-documentation.ts';

/** The closed vocabulary of error codes (decisions.md, "Status and errors"), with their HTTP status. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  invalid_state: 409,
  idempotency_key_reused: 409,
  idempotency_key_in_use: 409,
  payload_too_large: 413,
  idempotency_key_required: 428,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ErrorCode = z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]);

export const ERROR_TITLES: Record<ErrorCode, string> = {
  invalid_request: 'Invalid request',
  unauthenticated: 'Unauthenticated',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  invalid_state: 'Invalid state',
  idempotency_key_reused: 'Idempotency key reused',
  idempotency_key_in_use: 'Idempotency key in use',
  payload_too_large: 'Payload too large',
  idempotency_key_required: 'Idempotency key required',
  rate_limited: 'Rate limited',
  internal: 'Internal error',
  unavailable: 'Service unavailable',
};

/** Media type of every error response (RFC 9457). */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** One failed validation rule: `path` is dotted (`items.0.unit_amount`). */
export const FieldError = z
  .object({ path: z.string(), message: z.string() })
  .meta({ id: 'FieldError' });

/** An error response (RFC 9457 problem details), never wrapped in `data`. */
export const Problem = z
  .object({
    type: z.string().describe('A URI naming the error type: `https://docs.invoicing.dev/errors#<code>`, one per `code`.').meta({ example: 'https://docs.invoicing.dev/errors#not_found' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: ErrorCode.meta({ id: 'ProblemCode', description: 'The stable error code; `status` follows from it.', override: openEnum('ProblemCode') }),
    request_id: z.string(),
    errors: z.array(FieldError).optional().describe('Present on validation failures.'),
  })
  .meta({ id: 'Problem' });
export type Problem = z.infer<typeof Problem>;

/** The `type` URI of a problem with this code. */
export const problemType = (code: ErrorCode): string => `https://docs.invoicing.dev/errors#${code}`;
