import type { FastifyInstance } from 'fastify';

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
    parseJson(request, body as string, done);
  });
};
