import type { FastifyInstance } from 'fastify';
import { invalidRequest } from './app-error.ts';

/**
 * No request body of the API nests deeper than a few levels (an invoice line's discount is the
 * deepest, at 4). Anything past this is refused before it is parsed, so no recursive walk over a
 * body (the Idempotency-Key fingerprint, validation, the NUL guard) can run out of stack.
 */
export const JSON_NESTING_MAX = 32;

/** Whether JSON text opens more than `max` arrays or objects inside one another (brackets in strings do not count). */
export const nestsDeeperThan = (text: string, max: number): boolean => {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index += 1;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (char === 0x5d || char === 0x7d) depth -= 1;
  }
  return false;
};

/**
 * Request bodies are JSON only. Without removing it, text/plain would parse as a string and fail
 * later with a vaguer message. An empty body sent with `Content-Type: application/json` (as many
 * HTTP clients do on every POST) counts as no body, for the operations that take none.
 */
export const acceptJsonBodiesOnly = (app: FastifyInstance): void => {
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') {
      done(null, undefined);
      return;
    }
    if (nestsDeeperThan(body as string, JSON_NESTING_MAX)) {
      done(invalidRequest(`The body nests arrays and objects more than ${JSON_NESTING_MAX} levels deep.`), undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
};
