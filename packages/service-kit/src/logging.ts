import type { FastifyServerOptions } from 'fastify';

/** JSON logs (pino) with the request id on every line and credentials redacted. */
export const loggerOptions = (service: string, level: string): FastifyServerOptions['logger'] =>
  level === 'silent'
    ? false
    : {
        level,
        base: { service },
        redact: {
          paths: ['req.headers.authorization', 'req.headers["x-internal-token"]', 'req.headers.cookie'],
          censor: '[redacted]',
        },
      };
