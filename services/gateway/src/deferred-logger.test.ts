import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { deferredChildLogger } from './deferred-logger.ts';

const appLoggingTo = (level: string) => {
  const lines: Record<string, unknown>[] = [];
  const sut = Fastify({
    logger: { level, stream: { write: (line: string) => lines.push(JSON.parse(line)) } },
    disableRequestLogging: true,
    childLoggerFactory: deferredChildLogger,
  });
  sut.get('/work', async (request) => {
    request.log = request.log.child({ workspace_id: 'ws-1' });
    request.log.debug('not written at info');
    request.log.info({ step: 1 }, 'first');
    request.log.child({ step: 2 }).warn('second');
    return { ok: true };
  });
  return { sut, lines };
};

describe('deferred request loggers', () => {
  it('write each line with the request id and every binding added on the way, at the levels enabled', async () => {
    const { sut, lines } = appLoggingTo('info');
    const response = await sut.inject({ method: 'GET', url: '/work' });

    expect(response.statusCode).toBe(200);
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, reqId: expect.any(String), workspace_id: 'ws-1', step: 1, msg: 'first' }),
      expect.objectContaining({ level: 40, reqId: lines[0]?.reqId, workspace_id: 'ws-1', step: 2, msg: 'second' }),
    ]);
  });

  it('write nothing below the level', async () => {
    const { sut, lines } = appLoggingTo('error');
    await sut.inject({ method: 'GET', url: '/work' });

    expect(lines).toEqual([]);
  });
});
