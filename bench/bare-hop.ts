// The least any proxy in its own process can cost on this machine: node:http in front of one
// keep-alive undici pool, adding the headers the gateway adds and nothing else (no authentication,
// no scopes, no rate limit, no logging, no metrics). The gateway section measures it beside the
// gateway, so every run shows how much of the gateway's cost is the hop itself.
//
// Run by the benchmark as a child process: UPSTREAM_URL, PORT and FORWARDED_HEADERS (JSON) in its
// environment; it prints "listening" once it accepts connections.
import { createServer } from 'node:http';
import { Pool } from 'undici';

const upstream = process.env.UPSTREAM_URL;
const port = Number(process.env.PORT);
if (!upstream || !Number.isInteger(port)) throw new Error('bare-hop needs UPSTREAM_URL and PORT');
const forwarded = JSON.parse(process.env.FORWARDED_HEADERS ?? '{}') as Record<string, string>;

// The same pool settings as the gateway's upstreams.
const pool = new Pool(upstream, { connections: 128, pipelining: 1, keepAliveTimeout: 60_000 });

const server = createServer(async (request, response) => {
  try {
    const upstreamResponse = await pool.request({
      method: request.method as 'GET',
      path: request.url ?? '/',
      headers: { ...forwarded, accept: request.headers.accept ?? '*/*' },
    });
    const body = Buffer.from(await upstreamResponse.body.arrayBuffer());
    response.writeHead(upstreamResponse.statusCode, {
      'content-type': String(upstreamResponse.headers['content-type'] ?? 'application/json'),
      'content-length': body.length,
    });
    response.end(body);
  } catch {
    response.writeHead(503).end();
  }
});

server.listen(port, '127.0.0.1', () => process.stdout.write('listening\n'));
process.once('SIGTERM', () => {
  server.close();
  void pool.close();
});
