import { Agent, request } from 'undici';
import { AddressNotAllowedError, type AddressPolicy } from '../../shared/address-policy.ts';

/** A receiver's answer is read up to this much; the rest is never downloaded. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** How much of it an attempt keeps for the deliveries list. */
export const KEPT_RESPONSE_CHARS = 4096;

const USER_AGENT = 'Invoicing-Webhooks/1.0 (+https://www.standardwebhooks.com)';

export interface WebhookRequest {
  url: string;
  body: string;
  headers: Readonly<Record<string, string>>;
}

export interface WebhookResponse {
  /** Null when no response came. */
  statusCode: number | null;
  latencyMs: number;
  /** The first KEPT_RESPONSE_CHARS characters of the body. */
  responseBody: string | null;
  retryAfter: string | null;
  /** Why it failed: no response, or a non-2xx status. */
  error: string | null;
}

const readAtMost = async (body: AsyncIterable<Buffer>, limit: number): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop destroys the stream: nothing past the limit is downloaded.
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) break;
  }
  return Buffer.concat(chunks).subarray(0, limit);
};

const describeFailure = (error: unknown, timeoutMs: number): string => {
  if (error instanceof AddressNotAllowedError) return `address not allowed: ${error.message}`;
  const { name, code, message, cause } = error as { name?: string; code?: string; message?: string; cause?: unknown };
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `timed out after ${timeoutMs} ms`;
  }
  if (cause instanceof Error) return describeFailure(cause, timeoutMs);
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host not found (${code})`;
  return [code, message].filter(Boolean).join(': ') || 'request failed';
};

export interface WebhookSenderOptions {
  policy: AddressPolicy;
  timeoutMs: number;
}

/**
 * POSTs webhooks: one deadline from connect to the last byte read, no redirects followed (a 3xx
 * is a failed attempt), at most MAX_RESPONSE_BYTES read, and every connection made to an address
 * the policy checked at that moment (its `lookup`); an address written into the URL is checked
 * before anything is sent.
 */
export const createWebhookSender = ({ policy, timeoutMs }: WebhookSenderOptions) => {
  const agent = new Agent({
    connect: { lookup: policy.lookup, timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 30_000,
    connections: 16,
  });

  const send = async ({ url, body, headers }: WebhookRequest): Promise<WebhookResponse> => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      policy.checkUrl(url);
      const response = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = (await readAtMost(response.body, MAX_RESPONSE_BYTES)).toString('utf8');
      const retryAfter = response.headers['retry-after'];
      const succeeded = response.statusCode >= 200 && response.statusCode < 300;
      return {
        statusCode: response.statusCode,
        latencyMs: elapsed(),
        responseBody: text.length > 0 ? text.slice(0, KEPT_RESPONSE_CHARS) : null,
        retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
        error: succeeded ? null : `HTTP ${response.statusCode}`,
      };
    } catch (error) {
      return { statusCode: null, latencyMs: elapsed(), responseBody: null, retryAfter: null, error: describeFailure(error, timeoutMs) };
    }
  };

  return { send, close: () => agent.close() };
};

export type WebhookSender = ReturnType<typeof createWebhookSender>;
