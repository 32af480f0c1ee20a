import { invalidRequest } from './app-error.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';

// No request schema nests deeper than this; anything deeper fails validation before any query runs.
const MAX_DEPTH = 8;

/** The dotted path of the first string holding a NUL character, looking no deeper than MAX_DEPTH. */
export const findNulCharacter = (value: unknown, path = '', depth = 0): string | undefined => {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = findNulCharacter(child, path ? `${path}.${key}` : key, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
};

/**
 * PostgreSQL cannot store a NUL character in text and refuses a query carrying one as a protocol
 * violation, so such a value is a 400 on its field, found before validation and any query.
 */
export const refuseNulCharacters = async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
  const path = findNulCharacter(request.body) ?? findNulCharacter(request.query);
  if (path !== undefined) {
    throw invalidRequest('Text may not contain the NUL character (\\u0000).', [{ path, message: 'contains a NUL character' }]);
  }
};
