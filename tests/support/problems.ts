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

/**
 * Asserts that a body above the limit is refused: a 413 `payload_too_large`, or the connection
 * closed while the client was still sending the rest (EPIPE, ECONNRESET), which is how a server
 * that answered early may end a request it will not read.
 */
export const expectRefusedAsTooLarge = async (sending: Promise<Response>): Promise<void> => {
  const answer = await sending.catch((error: { cause?: { code?: string } }) => error);
  if (answer instanceof Response) {
    expect(answer.status).toBe(413);
    expect(((await answer.json()) as { code: string }).code).toBe('payload_too_large');
  } else expect(answer.cause?.code).toMatch(/^(EPIPE|ECONNRESET)$/);
};
