import { PassThrough, Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

// Bodies up to this size are gathered whole and sent in one write; larger ones (PDFs) are streamed.
export const BUFFERED_BODY_MAX = 64 * 1024;

/** A response body gathered whole: a stream to whoever reads it as one, or `bytes` at once. */
export class WholeBody extends Readable {
  readonly bytes: Buffer;

  constructor(bytes: Buffer) {
    super();
    this.bytes = bytes;
  }

  override _read(): void {
    this.push(this.bytes);
    this.push(null);
  }
}

/** A service's answer as reply-from receives it from its undici client. */
export interface UpstreamAnswer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

type RequestCallback = (error: Error | null, answer?: UpstreamAnswer) => void;

/** What reply-from asks of its undici client: `request(options, callback)`. */
export interface UpstreamClient {
  request: (options: Dispatcher.DispatchOptions, callback: RequestCallback) => void;
}

/**
 * The undici client the proxy forwards with: the service's keep-alive pool, reached through
 * undici's dispatch handler. A small body is gathered straight from the connection and handed on
 * as a `WholeBody`, without the response stream, async resource and promise steps `pool.request`
 * makes for every response (a measurable part of the gateway's CPU per request). A body longer
 * than BUFFERED_BODY_MAX, or of unknown length, streams as soon as the headers have come, reads
 * from the service at the client's pace and stops the exchange if the client goes away. Fails if
 * the service cannot be reached, fails or times out (the pool's timeouts) before that.
 */
export const upstreamClientOf = (pool: Dispatcher): UpstreamClient => ({
  request: (options, callback) => {
    let statusCode = 0;
    let headers: UpstreamAnswer['headers'] = {};
    const chunks: Buffer[] = [];
    let stream: PassThrough | undefined;
    let ended = false;
    pool.dispatch(options, {
      onRequestStart() {},
      onResponseStart(controller, status, responseHeaders) {
        statusCode = status;
        headers = responseHeaders;
        if (Number(responseHeaders['content-length']) <= BUFFERED_BODY_MAX) return;
        const body = new PassThrough();
        body.on('drain', () => controller.resume());
        body.once('close', () => {
          if (!ended) controller.abort(new Error('The client went away before the body was relayed.'));
        });
        stream = body;
        callback(null, { statusCode, headers, body });
      },
      onResponseData(controller, chunk) {
        if (stream === undefined) chunks.push(chunk);
        else if (!stream.write(chunk)) controller.pause();
      },
      onResponseEnd() {
        ended = true;
        if (stream === undefined) callback(null, { statusCode, headers, body: new WholeBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)) });
        else stream.end();
      },
      onResponseError(_controller, error) {
        ended = true;
        if (stream === undefined) callback(error);
        else stream.destroy(error);
      },
    });
  },
});
