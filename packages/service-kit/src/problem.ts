import { ERROR_TITLES, PROBLEM_CONTENT_TYPE, problemType, type ErrorCode, type Problem } from '@invoicing/contracts';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, type FieldIssue } from './app-error.ts';

export const renderProblem = (code: ErrorCode, status: number, detail: string, requestId: string, errors?: FieldIssue[]): Problem => ({
  type: problemType(code),
  title: ERROR_TITLES[code],
  status,
  detail,
  code,
  request_id: requestId,
  ...(errors ? { errors } : {}),
});

/**
 * Answers a request Node's HTTP parser refused before Fastify saw it (a malformed header, headers
 * too large, a request that took too long to arrive) with a problem document instead of Node's
 * plain JSON, then closes the connection, as the parser cannot go on with it.
 */
export const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex): void => {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, detail] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'The request did not arrive in time.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'The request headers are too large.']
        : [400, 'Bad Request', 'The request is malformed HTTP (a header name or value, say, has characters HTTP does not allow).'];
  const body = JSON.stringify(renderProblem('invalid_request', status, detail, randomUUID()));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
};

export const sendProblem = (reply: FastifyReply, error: AppError): FastifyReply => {
  if (error.headers) reply.headers(error.headers);
  return reply
    .code(error.status)
    .type(PROBLEM_CONTENT_TYPE)
    .send(renderProblem(error.code, error.status, error.message, String(reply.request.id), error.errors));
};

const dotted = (instancePath: string): string => instancePath.replace(/^\//, '').replaceAll('/', '.');

const validationIssues = (error: FastifyError): FieldIssue[] => {
  if (!hasZodFastifySchemaValidationErrors(error)) return [];
  return error.validation.flatMap((issue) => {
    const path = dotted(issue.instancePath);
    const keys = (issue.params as { keys?: unknown }).keys;
    if (issue.keyword === 'unrecognized_keys' && Array.isArray(keys)) {
      return keys.map((key) => ({ path: path ? `${path}.${String(key)}` : String(key), message: 'unknown field' }));
    }
    return [{ path, message: issue.message ?? 'is invalid' }];
  });
};

// Connection failures and shutdowns: the dependency is unavailable, not the request wrong.
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// pg and pg-pool say these in words only: a connection cut mid-query, a pool that waited too long for one.
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly/i;

/**
 * Whether an error says PostgreSQL (or another dependency) could not be reached, rather than that
 * it refused what was asked: errnos, SQLSTATE classes 08 (connection exception), 57P01-57P05
 * (shutdown, cannot connect now) and 53300 (too many connections), and pg's own wording.
 */
export const isConnectionError = (error: unknown): boolean => {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  // 08P01 (protocol violation) is a value the wire protocol refused, not a lost connection.
  if (typeof code === 'string' && (UNAVAILABLE_ERRNOS.has(code) || code === '53300' || (/^(08|57P0)/.test(code) && code !== '08P01'))) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message);
};

/** PostgreSQL "data exception" class (22xxx): a value the database cannot hold, such as a NUL byte. */
const isDataException = (error: unknown): boolean => /^(22|08P01$)/.test(String((error as { code?: unknown }).code ?? ''));

/** Maps any thrown error to an AppError; unknown errors become a 500 that leaks nothing. */
export const toAppError = (error: unknown): AppError => {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const where = fastifyError.validationContext ?? 'request';
    return new AppError('invalid_request', `The ${where} is invalid.`, { errors: validationIssues(fastifyError) });
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The body is larger than this operation takes (1 MiB, unless the operation says otherwise).');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_request', 'Request bodies must be JSON sent with Content-Type: application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_request', 'The body is empty but Content-Type is application/json; send a JSON object or no Content-Type.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_request', 'The body is not valid JSON.');
  }
  if (fastifyError.statusCode === 400 && fastifyError instanceof SyntaxError) {
    return new AppError('invalid_request', 'The body is not valid JSON.');
  }
  if (isConnectionError(error)) return new AppError('unavailable', 'A dependency is unavailable; retry later.');
  if (isDataException(error)) return new AppError('invalid_request', 'A value in the request cannot be stored (for example a NUL character).');
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    return new AppError(status === 413 ? 'payload_too_large' : 'invalid_request', fastifyError.message);
  }
  return new AppError('internal', 'An internal error occurred; quote the request_id when reporting it.');
};

export interface ProblemHandlerOptions {
  /**
   * The methods a path takes, when it is a known path (else undefined): a request with another
   * method answers 405 `method_not_allowed` with `Allow` (RFC 9110 §15.5.6) instead of 404.
   */
  methodsOf?: (path: string) => readonly string[] | undefined;
}

/** Renders every error, and every unknown route, as application/problem+json. */
export const registerProblemHandlers = (app: FastifyInstance, { methodsOf }: ProblemHandlerOptions = {}): void => {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    // An unexpected error is a bug to investigate; a dependency that is down is an expected condition.
    if (appError.code === 'internal') request.log.error({ err: error }, 'request failed');
    else if (appError.code === 'unavailable') request.log.warn({ detail: appError.message }, 'dependency unavailable');
    return sendProblem(reply, appError);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = methodsOf?.(path);
    if (allowed && allowed.length > 0) {
      const allow = allowed.join(', ');
      return sendProblem(reply, new AppError('method_not_allowed', `${path} does not take ${request.method}; it takes ${allow}.`, { headers: { allow } }));
    }
    return sendProblem(reply, new AppError('not_found', `No route ${request.method} ${path}.`));
  });
};
