import { expect } from 'vitest';

interface ErrorResult {
  error?: unknown;
  response: Response;
}

/** Asserts an `application/problem+json` answer with this status and code, as a client would check it. */
export const expectProblem = (result: ErrorResult, status: number, code: string): void => {
  expect(result.response.status).toBe(status);
  expect(result.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(result.error).toMatchObject({ status, code });
};
