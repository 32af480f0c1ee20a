/**
 * Headers the gateway sets on every request it forwards, after stripping any a client sent.
 * Services trust them only alongside a valid internal token.
 */
export const INTERNAL_HEADERS = {
  token: 'x-internal-token',
  workspaceId: 'x-workspace-id',
  apiKeyId: 'x-api-key-id',
  idempotencyKey: 'x-idempotency-key',
  requestId: 'x-request-id',
} as const;
