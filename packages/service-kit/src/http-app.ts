import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { gatherMetadataQuery, type Operation } from '@invoicing/contracts';
import { RequestContext } from '@mikro-orm/core';
import type { IncomingHttpHeaders, Server } from 'node:http';
import Fastify, { LogController, type FastifyHttpOptions, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from './app-error.ts';
import type { Orm } from './database.ts';
import { INTERNAL_HEADERS } from './internal-headers.ts';
import { acceptJsonBodiesOnly } from './json-bodies.ts';
import { KeyedWrites, runKeyedWrite, type KeyedWriteClaim, type SelfRecordedWrite } from './keyed-writes.ts';
import { registerMetrics } from './metrics.ts';
import { fingerprintOf } from './request-fingerprint.ts';
import { registerTracing } from './tracing.ts';
import { refuseNulCharacters } from './nul-guard.ts';
import { answerClientError, registerProblemHandlers, sendProblem } from './problem.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** The longest a client may take to send a whole request, and its headers; checked every few seconds. */
export const REQUEST_TIMEOUT_MS = 30_000;
export const HEADERS_TIMEOUT_MS = 10_000;
export const TIMEOUT_CHECK_INTERVAL_MS = 5_000;

const WELL_FORMED_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes a well-formed `x-request-id` from upstream, or makes one. */
export const requestIdOf = (request: { headers: Record<string, string | string[] | undefined> }): string => {
  const header = request.headers[INTERNAL_HEADERS.requestId];
  return typeof header === 'string' && WELL_FORMED_ID.test(header) ? header : randomUUID();
};

export const baseServerOptions = (logger: FastifyServerOptions['logger']): FastifyHttpOptions<Server> => ({
  logger: logger ?? false,
  genReqId: requestIdOf,
  logController: new LogController({ requestIdLogLabel: 'request_id' }),
  bodyLimit: BODY_LIMIT_BYTES,
  return503OnClosing: true,
  connectionTimeout: 30_000,
  keepAliveTimeout: 72_000,
  requestTimeout: REQUEST_TIMEOUT_MS,
  // Node swaps the two timeouts when the headers' is the longer (its default 60 s is), which would
  // let a body trickle in for a minute; and it checks them only every 30 s unless told otherwise.
  http: { headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS },
  clientErrorHandler: answerClientError,
  // Errors the router raises before any route runs: a path segment too long to be an ID names
  // nothing (404, like any unknown ID); a malformed URL is the client's mistake (400).
  frameworkErrors: (error, _request, reply) =>
    sendProblem(
      reply,
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new AppError('not_found', 'Nothing exists at this path: a path segment is too long.')
        : new AppError('invalid_request', 'The URL is malformed.'),
    ),
});

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Compares secrets in constant time (digests first, so unequal lengths leak nothing either). */
export const secretsMatch = (given: string, expected: string): boolean => timingSafeEqual(digest(given), digest(expected));

/**
 * Whether a request presents an internal token other than this platform's. Probes need none; one
 * that presents a token learns whether this is its own platform's process (the gateway's
 * readiness of its upstreams, a launcher whose port another run's service holds).
 */
export const presentsForeignToken = (headers: IncomingHttpHeaders, internalToken: string): boolean => {
  const token = headers[INTERNAL_HEADERS.token];
  return token !== undefined && (typeof token !== 'string' || !secretsMatch(token, internalToken));
};

export interface ServiceAppOptions {
  /** The service's name, a label on its metrics. */
  name: string;
  logger: FastifyServerOptions['logger'];
  internalToken: string;
  /** One identity map per request. */
  orm?: Orm;
  /** Throws when a dependency does not answer; `/readyz` turns that into a 503. */
  checkReadiness: () => Promise<void>;
  /**
   * Where the outcomes of the service's writes under an Idempotency-Key are recorded (the schema
   * has `keyedWritesTableSql`); required, with `orm`, by a service that serves any keyed operation.
   * `assembleService` purges the expired ones.
   */
  keyedWrites?: { schema: string; ttlHours: number };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's record of keyed writes; null in a service that has none. */
    keyedWrites: { orm: Orm; writes: KeyedWrites } | null;
  }
}

/** Routes that answer without the internal token: probes and metrics. */
const OPEN_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * A Fastify app with the conventions every service shares: Zod validation, problem+json errors,
 * request ids, the internal credential on every route but the probes, and health routes.
 */
export const createServiceApp = ({ name, logger, internalToken, orm, checkReadiness, keyedWrites }: ServiceAppOptions) => {
  const app = Fastify(baseServerOptions(logger)).withTypeProvider<ZodTypeProvider>();
  if (keyedWrites && !orm) throw new Error(`${name}: keyed writes are recorded in the database, so the app needs its orm`);
  const writes = keyedWrites && orm ? new KeyedWrites({ orm, ...keyedWrites }) : undefined;
  app.decorate('keyedWrites', writes && orm ? { orm, writes } : null);
  // Bound when the request's logger is made, so even its first line names the workspace.
  app.setChildLoggerFactory((parent, bindings, options, raw) => {
    const workspaceId = raw.headers[INTERNAL_HEADERS.workspaceId];
    return parent.child(typeof workspaceId === 'string' && WELL_FORMED_ID.test(workspaceId) ? { ...bindings, workspace_id: workspaceId } : bindings, options);
  });
  registerTracing(app, name);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerProblemHandlers(app);
  acceptJsonBodiesOnly(app);

  app.addHook('onRequest', async (request, reply) => {
    reply.header(INTERNAL_HEADERS.requestId, request.id);
    const presented = request.headers[INTERNAL_HEADERS.token] !== undefined;
    if (OPEN_PATHS.has(request.url) && !presented) return;
    if (!presented || presentsForeignToken(request.headers, internalToken)) {
      throw new AppError('unauthenticated', 'This service is reached through the gateway only.');
    }
  });
  if (orm) app.addHook('onRequest', (_request, _reply, done) => RequestContext.create(orm.em, done));
  app.addHook('preValidation', refuseNulCharacters);

  registerMetrics(app, name);
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      await checkReadiness();
      return { status: 'ready' };
    } catch (error) {
      throw new AppError('unavailable', `Not ready: ${(error as Error).message}`);
    }
  });
  return app;
};

export type ServiceApp = ReturnType<typeof createServiceApp>;

/** Who is calling, as established by the gateway. */
export interface Caller {
  workspaceId: string;
  apiKeyId: string;
  requestId: string;
  idempotencyKey: string | undefined;
}

export const callerOf = (request: FastifyRequest): Caller => {
  const workspaceId = request.headers[INTERNAL_HEADERS.workspaceId];
  const apiKeyId = request.headers[INTERNAL_HEADERS.apiKeyId];
  const idempotencyKey = request.headers[INTERNAL_HEADERS.idempotencyKey];
  if (typeof workspaceId !== 'string' || typeof apiKeyId !== 'string') {
    throw new AppError('unauthenticated', 'No workspace on the request.');
  }
  return {
    workspaceId,
    apiKeyId,
    requestId: String(request.id),
    idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : undefined,
  };
};

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export type OperationRequest<O extends Operation> = FastifyRequest<{
  Params: Parsed<O['params']>;
  Querystring: Parsed<O['query']>;
  Body: Parsed<O['body']>;
}>;

const successStatus = (operation: Operation): number => {
  const status = Object.keys(operation.responses).map(Number).find((s) => s >= 200 && s < 300);
  if (status === undefined) throw new Error(`${operation.operationId} documents no success status`);
  return status;
};

// A keyed request's claim on its key, with the fingerprint of its body as sent: taken before
// validation applies defaults.
const claims = new WeakMap<FastifyRequest, KeyedWriteClaim>();

const claimOf = (request: FastifyRequest): KeyedWriteClaim | undefined => {
  const { [INTERNAL_HEADERS.workspaceId]: workspaceId, [INTERNAL_HEADERS.idempotencyKey]: key } = request.headers;
  if (typeof workspaceId !== 'string' || typeof key !== 'string') return undefined;
  return { workspaceId, key, fingerprint: fingerprintOf(request.method, request.url, request.body) };
};

/**
 * Serves one contract operation: the contract's schemas validate the request and the response,
 * and the handler's return value is sent with the operation's success status. A write that takes
 * an Idempotency-Key, called with one, runs in one transaction with the record of its outcome
 * (see keyed-writes.ts), so every keyed write of every service is exactly-once at commit.
 */
export const registerOperation = <O extends Operation>(
  app: FastifyInstance,
  operation: O,
  /** `keyed`: with `recordsOwnOutcome`, the keyed write whose outcome the handler records; undefined without a key. */
  handler: (request: OperationRequest<O>, reply: FastifyReply, keyed: SelfRecordedWrite | undefined) => Promise<unknown>,
  /** `recordsOwnOutcome`: the handler commits in a transaction it runs itself and records its outcome there (see SelfRecordedWrite). */
  { recordsOwnOutcome = false }: { recordsOwnOutcome?: boolean } = {},
): void => {
  const status = successStatus(operation);
  const keyed = operation.idempotency !== 'none';
  if (keyed && !app.keyedWrites) throw new Error(`${operation.operationId} takes an Idempotency-Key, but the app records no keyed writes (createServiceApp's keyedWrites)`);
  const response: Record<number, z.ZodType> = {};
  for (const [code, { schema }] of Object.entries(operation.responses)) if (schema) response[Number(code)] = schema;
  app.route({
    method: operation.method,
    url: operation.path,
    // An operation that takes a larger body (a supporting document) says so; every other keeps the app's 1 MiB.
    ...(operation.bodyLimitBytes ? { bodyLimit: operation.bodyLimitBytes } : {}),
    schema: {
      ...(operation.params ? { params: operation.params } : {}),
      ...(operation.query ? { querystring: 'metadata' in operation.query.shape ? z.preprocess(gatherMetadataQuery, operation.query) : operation.query } : {}),
      // An optional body arrives as null when none is sent: it then parses as `{}`, so defaults apply.
      ...(operation.body ? { body: operation.bodyOptional ? z.preprocess((value) => value ?? {}, operation.body) : operation.body } : {}),
      response,
    },
    ...(keyed
      ? {
          preValidation: (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
            const claim = claimOf(request);
            if (claim) claims.set(request, claim);
            done();
          },
        }
      : {}),
    handler: async (request, reply) => {
      reply.code(status);
      const handle = (keyed?: SelfRecordedWrite) => handler(request as unknown as OperationRequest<O>, reply, keyed);
      const claim = claims.get(request);
      if (claim && app.keyedWrites) return runKeyedWrite({ request, reply, ...app.keyedWrites, claim, recordsOwnOutcome }, handle);
      const result = await handle();
      return status === 204 ? reply.send() : result;
    },
  });
};
