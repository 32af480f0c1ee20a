import type { components } from './api-schema.generated.ts';

/** An error answer of the API: `application/problem+json` (RFC 9457) with a stable `code`. */
export type Problem = components['schemas']['Problem'];

/** Any other answer than 2xx, as a thrown error: `status`, `code` and the whole problem document. */
export class InvoicingApiError extends Error {
  override readonly name = 'InvoicingApiError';
  readonly status: number;
  /** `not_found`, `invalid_state`, …; a code added to the API later arrives as it is. */
  readonly code: Problem['code'];
  readonly requestId: string | undefined;
  readonly problem: Problem | undefined;

  constructor(response: Response, problem: Problem | undefined) {
    super(problem ? `${problem.status} ${problem.code}: ${problem.detail}` : `HTTP ${response.status}`);
    this.status = response.status;
    this.problem = problem;
    this.code = problem?.code ?? (response.status >= 500 ? 'internal' : 'invalid_request');
    this.requestId = problem?.request_id ?? response.headers.get('x-request-id') ?? undefined;
  }
}

/** Whether an error is an API error, of one code when given. */
export const isApiError = (error: unknown, code?: Problem['code']): error is InvoicingApiError =>
  error instanceof InvoicingApiError && (code === undefined || error.code === code);

const isProblem = (value: unknown): value is Problem =>
  typeof value === 'object' && value !== null && typeof (value as { code?: unknown }).code === 'string' && typeof (value as { status?: unknown }).status === 'number';

/**
 * The body of a 2xx answer, or a thrown `InvoicingApiError`:
 * `const { data: invoice } = await unwrap(api.GET('/api/v1/invoices/{id}', …))`.
 */
export const unwrap = async <T>(call: Promise<{ data?: T; error?: unknown; response: Response }> | { data?: T; error?: unknown; response: Response }): Promise<T> => {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  throw new InvoicingApiError(response, isProblem(error) ? error : undefined);
};
