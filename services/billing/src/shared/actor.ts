import { parsePublicId, toPublicId } from '@invoicing/contracts';
import { callerOf, workspaceIdOf, type Caller } from '@invoicing/service-kit';
import type { FastifyRequest } from 'fastify';

/** Who acts, in what request: every change records it in the timeline and in its event. */
export interface Actor {
  /** The workspace UUID, as stored on every row. */
  workspaceId: string;
  /** The API key (`key_…`); null for the system (the overdue sweep). */
  keyId: string | null;
  requestId: string;
  idempotencyKey: string | null;
}

/**
 * The actor the gateway authenticated. The gateway sends the workspace as a dashed UUID (the
 * `ws_` form is accepted too); anything else means the request did not come through the gateway
 * as it should, so it is refused rather than guessed at.
 */
export const actorOf = (request: FastifyRequest): Actor => {
  const caller = callerOf(request);
  return { workspaceId: workspaceIdOf(caller), keyId: publicKeyId(caller.apiKeyId), requestId: caller.requestId, idempotencyKey: caller.idempotencyKey ?? null };
};

/** Key ids as the operator command shows them (`key_…`), whichever form the gateway sent. */
const publicKeyId = (sent: string): string => {
  const uuid = parsePublicId('apiKey', sent);
  return uuid === undefined ? sent : toPublicId('apiKey', uuid);
};

/** The identity to pass on when billing calls another service on the actor's behalf. */
export const callerFor = (actor: Actor): Caller => ({
  workspaceId: actor.workspaceId,
  apiKeyId: actor.keyId ?? 'system',
  requestId: actor.requestId,
  idempotencyKey: undefined,
});
