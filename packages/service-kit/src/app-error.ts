import { ERROR_STATUS, type ErrorCode } from '@invoicing/contracts';

export interface FieldIssue {
  path: string;
  message: string;
}

/** The one error type use cases throw; the error handler renders it as problem+json. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: FieldIssue[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, detail: string, options: { errors?: FieldIssue[]; headers?: Record<string, string> } = {}) {
    super(detail);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.errors = options.errors;
    this.headers = options.headers;
  }
}

export const invalidRequest = (detail: string, errors?: FieldIssue[]) =>
  new AppError('invalid_request', detail, errors ? { errors } : {});

/** What an ID of this API looks like: a prefixed public ID or a dashed UUID. */
const ID_SHAPED = /^(?:[a-z]{1,8}_[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/**
 * A resource that does not exist in the caller's workspace (another workspace's looks the same).
 * The detail names the ID only when it is shaped like one: anything else sent where an ID goes
 * (an API key or a webhook secret pasted by mistake, markup) is never echoed back.
 */
export const notFound = (resource: string, id: string) =>
  new AppError('not_found', ID_SHAPED.test(id) ? `No ${resource} with id '${id}'.` : `No ${resource} with that id.`);

export const invalidState = (detail: string) => new AppError('invalid_state', detail);

export const unavailable = (detail: string) => new AppError('unavailable', detail);
