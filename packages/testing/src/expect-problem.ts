import type { Problem } from '@invoicing/contracts';
import { expect } from 'vitest';

/** What `app.inject` resolves to, as far as a problem check needs it. */
export interface InjectedReply {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
  json: <T>() => T;
}

/** Asserts an application/problem+json reply with this status and code and, if given, these `errors[].path`s. */
export const expectProblem = (reply: InjectedReply, status: number, code: Problem['code'], paths?: string[]): Problem => {
  expect(reply.statusCode, reply.body).toBe(status);
  expect(reply.headers['content-type']).toMatch(/^application\/problem\+json/);
  const problem = reply.json<Problem>();
  expect(problem).toMatchObject({ status, code, request_id: expect.any(String), detail: expect.any(String) });
  if (paths) expect((problem.errors ?? []).map((error) => error.path)).toEqual(expect.arrayContaining(paths));
  return problem;
};
