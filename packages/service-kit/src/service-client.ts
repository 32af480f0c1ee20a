import type { z } from 'zod';
import { Pool } from 'undici';
import { unavailable } from './app-error.ts';
import type { Caller } from './http-app.ts';
import { INTERNAL_HEADERS } from './internal-headers.ts';
import { injectTraceHeaders } from './tracing.ts';

export interface ServiceClientOptions {
  /** The other service's origin, such as `http://127.0.0.1:3101`. */
  baseUrl: string;
  /** Its name, for error messages: `catalog`. */
  name: string;
  internalToken: string;
  /** Whole-request deadline: connect, headers and body. */
  timeoutMs: number;
  /** Keep-alive connections kept open to it. */
  connections?: number;
}

/** A call on no workspace's behalf (an internal route such as a public-link lookup): only the request id travels. */
export interface SystemCaller {
  requestId: string;
}

/**
 * A keep-alive HTTP client for calling another service with the caller's identity (the internal
 * headers the gateway set). Every failure to get an answer in time — refused connection, timeout,
 * 5xx — is a 503 `unavailable`, never a hang; a 404 is `undefined`, for the caller to report as
 * its own 404; any other status, or a body that breaks the contract, is a bug between services
 * and surfaces as a 500 that leaks nothing.
 */
export const createServiceClient = ({ baseUrl, name, internalToken, timeoutMs, connections = 16 }: ServiceClientOptions) => {
  const pool = new Pool(baseUrl, {
    connections,
    connectTimeout: timeoutMs,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 30_000,
  });

  const get = async <S extends z.ZodType>(path: string, caller: Caller | SystemCaller, schema: S): Promise<z.output<S> | undefined> => {
    let response: Awaited<ReturnType<typeof pool.request>>;
    try {
      const headers: Record<string, string> = {
        [INTERNAL_HEADERS.token]: internalToken,
        ...('workspaceId' in caller ? { [INTERNAL_HEADERS.workspaceId]: caller.workspaceId, [INTERNAL_HEADERS.apiKeyId]: caller.apiKeyId } : {}),
        [INTERNAL_HEADERS.requestId]: caller.requestId,
        accept: 'application/json',
      };
      injectTraceHeaders(headers);
      response = await pool.request({
        method: 'GET',
        path,
        headers,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch {
      throw unavailable(`The ${name} service did not answer; retry later.`);
    }
    const { statusCode, body } = response;
    if (statusCode === 404) {
      await body.dump();
      return undefined;
    }
    if (statusCode >= 500) {
      await body.dump();
      throw unavailable(`The ${name} service is unavailable; retry later.`);
    }
    if (statusCode !== 200) {
      await body.dump();
      throw new Error(`The ${name} service answered GET ${path} with ${statusCode}.`);
    }
    let json: unknown;
    try {
      json = await body.json();
    } catch {
      throw unavailable(`The ${name} service broke off its answer; retry later.`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new Error(`The ${name} service answered GET ${path} with a body that breaks its contract: ${parsed.error.message}`);
    return parsed.data;
  };

  /**
   * A write on the caller's behalf: POST (or PATCH) of a JSON body, with an `Idempotency-Key` when
   * given (the header the gateway would set), so the other service records the outcome with the
   * write and a repeat replays it. Answers the parsed success body, or the problem the other service
   * refused with (a 4xx: the caller decides whether it is final); no answer in time, or a 5xx, is
   * a 503 `unavailable`, as for `get`.
   */
  const send = async <S extends z.ZodType>(
    method: 'POST' | 'PATCH',
    path: string,
    caller: Caller,
    body: unknown,
    schema: S,
    { idempotencyKey }: { idempotencyKey?: string } = {},
  ): Promise<{ ok: true; status: number; data: z.output<S> } | { ok: false; status: number; problem: { code?: string; detail?: string } }> => {
    let response: Awaited<ReturnType<typeof pool.request>>;
    try {
      const headers: Record<string, string> = {
        [INTERNAL_HEADERS.token]: internalToken,
        [INTERNAL_HEADERS.workspaceId]: caller.workspaceId,
        [INTERNAL_HEADERS.apiKeyId]: caller.apiKeyId,
        [INTERNAL_HEADERS.requestId]: caller.requestId,
        ...(idempotencyKey !== undefined ? { [INTERNAL_HEADERS.idempotencyKey]: idempotencyKey } : {}),
        accept: 'application/json',
        'content-type': 'application/json',
      };
      injectTraceHeaders(headers);
      response = await pool.request({ method, path, headers, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
    } catch {
      throw unavailable(`The ${name} service did not answer; retry later.`);
    }
    const { statusCode } = response;
    if (statusCode >= 500) {
      await response.body.dump();
      throw unavailable(`The ${name} service is unavailable; retry later.`);
    }
    let json: unknown;
    try {
      json = await response.body.json();
    } catch {
      throw unavailable(`The ${name} service broke off its answer; retry later.`);
    }
    if (statusCode >= 400) return { ok: false, status: statusCode, problem: (json ?? {}) as { code?: string; detail?: string } };
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new Error(`The ${name} service answered ${method} ${path} with a body that breaks its contract: ${parsed.error.message}`);
    return { ok: true, status: statusCode, data: parsed.data };
  };


  /**
   * A document (a PDF, an XML file) as bytes, with its media type and the file name of its
   * `Content-Disposition`; undefined for a 404. Failures as `get`'s; a document larger than
   * `maxBytes` is refused (`DocumentTooLargeError`) without reading it all, and a 4xx other than
   * 404 is a `DocumentRefusedError` carrying the service's problem detail.
   */
  const getDocument = async (path: string, caller: Caller | SystemCaller, maxBytes: number): Promise<FetchedDocument | undefined> => {
    let response: Awaited<ReturnType<typeof pool.request>>;
    try {
      const headers: Record<string, string> = {
        [INTERNAL_HEADERS.token]: internalToken,
        ...('workspaceId' in caller ? { [INTERNAL_HEADERS.workspaceId]: caller.workspaceId, [INTERNAL_HEADERS.apiKeyId]: caller.apiKeyId } : {}),
        [INTERNAL_HEADERS.requestId]: caller.requestId,
      };
      injectTraceHeaders(headers);
      response = await pool.request({ method: 'GET', path, headers, signal: AbortSignal.timeout(timeoutMs) });
    } catch {
      throw unavailable(`The ${name} service did not answer; retry later.`);
    }
    const { statusCode, body, headers } = response;
    if (statusCode === 404) {
      await body.dump();
      return undefined;
    }
    if (statusCode >= 500) {
      await body.dump();
      throw unavailable(`The ${name} service is unavailable; retry later.`);
    }
    if (statusCode !== 200) {
      const problem = (await body.json().catch(() => ({}))) as { detail?: unknown };
      throw new DocumentRefusedError(`${name} answered GET ${path} with ${statusCode}: ${typeof problem.detail === 'string' ? problem.detail : 'no detail'}`);
    }
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      await body.dump();
      throw new DocumentTooLargeError(`GET ${path} is ${declared} bytes, more than ${maxBytes}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of body) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) {
          body.destroy();
          throw new DocumentTooLargeError(`GET ${path} is more than ${maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
    } catch (error) {
      if (error instanceof DocumentTooLargeError) throw error;
      throw unavailable(`The ${name} service broke off its answer; retry later.`);
    }
    const disposition = String(headers['content-disposition'] ?? '');
    const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? null;
    return { contentType: String(headers['content-type'] ?? 'application/octet-stream').split(';')[0]!.trim(), filename, bytes: Buffer.concat(chunks), headers };
  };


  return { get, send, getDocument, close: () => pool.close() };
};

export type ServiceClient = ReturnType<typeof createServiceClient>;

/** A document fetched from another service. */
export interface FetchedDocument {
  contentType: string;
  /** From its `Content-Disposition`, if it named one. */
  filename: string | null;
  bytes: Buffer;
  /** The answer's headers, for what a route sends beside the bytes (the listed size and SHA-256 of an attachment). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** The other service refused the document (a 4xx other than 404): asking again gives the same answer. */
export class DocumentRefusedError extends Error {}
/** The document is larger than the caller takes. */
export class DocumentTooLargeError extends Error {}
