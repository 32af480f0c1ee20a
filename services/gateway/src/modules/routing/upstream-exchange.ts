import { PassThrough, type Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The whole body, or a stream of it when it is longer than the exchange was asked to buffer. */
  body: Buffer | Readable;
}

/**
 * One exchange with a service over its pool, through undici's dispatch handler: a small body is
 * gathered straight from the connection, without the response stream and promises `pool.request`
 * makes for every response (a measurable part of the gateway's CPU per request). Resolves once
 * the whole body has come, or, for a body longer than a finite `bufferMax` or of unknown length, as
 * soon as the headers have, with a stream of the body that reads from the service at the client's pace
 * and stops the exchange if the client goes away. Rejects if the service cannot be reached, fails
 * or times out (the pool's timeouts) before that.
 */
export const exchange = (dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, bufferMax: number): Promise<UpstreamResponse> =>
  new Promise((resolve, reject) => {
    let status = 0;
    let headers: UpstreamResponse['headers'] = {};
    const chunks: Buffer[] = [];
    let stream: PassThrough | undefined;
    let ended = false;
    dispatcher.dispatch(options, {
      onRequestStart() {},
      onResponseStart(controller, statusCode, responseHeaders) {
        status = statusCode;
        headers = responseHeaders;
        // Read whole when it fits, or when everything must be (a keyed write's answer is recorded):
        // a body without a length (chunked) is streamed only where streaming is allowed at all.
        if (bufferMax === Infinity || Number(responseHeaders['content-length']) <= bufferMax) return;
        const body = new PassThrough();
        body.on('drain', () => controller.resume());
        body.once('close', () => {
          if (!ended) controller.abort(new Error('The client went away before the body was relayed.'));
        });
        stream = body;
        resolve({ status, headers, body });
      },
      onResponseData(controller, chunk) {
        if (stream === undefined) chunks.push(chunk);
        else if (!stream.write(chunk)) controller.pause();
      },
      onResponseEnd() {
        ended = true;
        if (stream === undefined) resolve({ status, headers, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
        else stream.end();
      },
      onResponseError(_controller, error) {
        ended = true;
        if (stream === undefined) reject(error);
        else stream.destroy(error);
      },
    });
  });
