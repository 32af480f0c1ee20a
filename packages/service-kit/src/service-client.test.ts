import { createServer, type Server } from 'node:http';
import { freePort } from '@invoicing/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from './app-error.ts';
import { createServiceClient } from './service-client.ts';

const caller = { workspaceId: '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887', apiKeyId: 'key-1', requestId: 'req-1', idempotencyKey: undefined };
const Thing = z.object({ data: z.object({ name: z.string() }) });

describe('service client', () => {
  let server: Server;
  let baseUrl: string;
  const seen: Record<string, string | string[] | undefined>[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push(request.headers);
      const send = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (request.url === '/ok') send(200, { data: { name: 'Acme' } });
      else if (request.url === '/broken') send(500, { code: 'internal' });
      else if (request.url === '/drifted') send(200, { data: { title: 'Acme' } });
      else if (request.url === '/hang') return; // never answers
      else send(404, { code: 'not_found' });
    });
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const sut = () => createServiceClient({ baseUrl, name: 'catalog', internalToken: 't'.repeat(32), timeoutMs: 300 });

  it('returns the parsed body and passes the caller on as internal headers', async () => {
    const client = sut();
    await expect(client.get('/ok', caller, Thing)).resolves.toEqual({ data: { name: 'Acme' } });
    expect(seen.at(-1)).toMatchObject({ 'x-internal-token': 't'.repeat(32), 'x-workspace-id': caller.workspaceId, 'x-api-key-id': 'key-1', 'x-request-id': 'req-1' });
    await client.close();
  });

  it('sends no workspace on a call made on behalf of no workspace', async () => {
    const client = sut();
    await expect(client.get('/ok', { requestId: 'req-2' }, Thing)).resolves.toEqual({ data: { name: 'Acme' } });
    expect(seen.at(-1)).toMatchObject({ 'x-internal-token': 't'.repeat(32), 'x-request-id': 'req-2' });
    expect(seen.at(-1)).not.toHaveProperty('x-workspace-id');
    expect(seen.at(-1)).not.toHaveProperty('x-api-key-id');
    await client.close();
  });

  it('answers undefined for a 404, so the caller reports its own 404', async () => {
    const client = sut();
    await expect(client.get('/missing', caller, Thing)).resolves.toBeUndefined();
    await client.close();
  });

  it('turns a 5xx, a hang and a refused connection into 503 unavailable', async () => {
    const client = sut();
    const started = Date.now();
    for (const path of ['/broken', '/hang']) {
      const error = await client.get(path, caller, Thing).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('unavailable');
    }
    expect(Date.now() - started).toBeLessThan(3_000);
    await client.close();
    const down = createServiceClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, name: 'catalog', internalToken: 'x', timeoutMs: 300 });
    await expect(down.get('/ok', caller, Thing)).rejects.toMatchObject({ code: 'unavailable', status: 503 });
    await down.close();
  });

  it('treats a body that breaks the contract as a bug, not as unavailability', async () => {
    const client = sut();
    const error = await client.get('/drifted', caller, Thing).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(AppError);
    await client.close();
  });
});
