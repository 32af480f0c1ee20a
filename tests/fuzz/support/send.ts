import { request } from 'undici';

/** One request exactly as built: any method, raw body bytes, headers as given. */
export interface RawRequest {
  method: string;
  /** Path and query, already encoded. */
  target: string;
  headers: Record<string, string>;
  body?: Buffer | undefined;
}

export interface RawAnswer {
  status: number;
  contentType: string;
  text: string;
  ms: number;
  headers: Record<string, string | string[] | undefined>;
}

/** The longest any answer may take before the fuzzer calls it a hang. */
export const HANG_MS = 10_000;

export const sendRaw = async (origin: string, { method, target, headers, body }: RawRequest): Promise<RawAnswer> => {
  const started = performance.now();
  const response = await request(`${origin}${target}`, {
    method: method as 'GET',
    headers,
    ...(body !== undefined ? { body } : {}),
    headersTimeout: HANG_MS,
    bodyTimeout: HANG_MS,
  });
  const text = await response.body.text();
  const contentType = response.headers['content-type'];
  return { status: response.statusCode, contentType: typeof contentType === 'string' ? contentType : '', text, ms: performance.now() - started, headers: response.headers };
};
