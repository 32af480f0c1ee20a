import type { z } from 'zod';
import type { Scope } from './scopes.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type ServiceName = 'gateway' | 'catalog' | 'billing' | 'documents' | 'notifications' | 'subscriptions';

/** Whether the gateway demands (428 without it), accepts, or ignores an `Idempotency-Key`. */
export type Idempotency = 'required' | 'optional' | 'none';

export interface OperationResponse {
  description: string;
  /** JSON body schema; absent for an empty body (204) or a non-JSON body. */
  schema?: z.ZodType;
  /** Media type of a non-JSON body, such as `application/pdf`. */
  contentType?: string;
  /** An example of a non-JSON body, for the reference (JSON bodies take theirs from the schema). */
  example?: string;
}

/**
 * One route of the public API: the single source for the service that serves it, the gateway
 * that authorizes it (scope, idempotency) and the OpenAPI document.
 */
export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  method: HttpMethod;
  /** Fastify-style path with `:param` segments, served by the same path on the owning service. */
  path: string;
  service: ServiceName;
  /** Scope the API key needs; null for public routes (no credentials). */
  scope: Scope | null;
  idempotency: Idempotency;
  /** Only for test keys (test clocks): a live key gets 403 `forbidden`. */
  testModeOnly?: boolean;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /**
   * The media type of the body when it is not JSON (a bank statement's `application/xml`): the
   * gateway and the service then take that type only, as text, up to `bodyLimitBytes`.
   */
  bodyContentType?: string;
  /** The largest body this operation takes, when larger than every service's 1 MiB (413 above it). */
  bodyLimitBytes?: number;
  /** The body may be omitted entirely (pay, void). */
  bodyOptional?: boolean;
  /** Extra error statuses this operation documents beyond the common ones. */
  errors?: readonly number[];
  responses: Readonly<Record<number, OperationResponse>>;
}

/** Declares an operation, keeping its literal schema types for typed handlers. */
export const defineOperation = <const O extends Operation>(operation: O): O => operation;
