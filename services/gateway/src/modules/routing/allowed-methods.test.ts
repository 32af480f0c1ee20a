import { OPERATIONS } from '@invoicing/contracts';
import { describe, expect, it } from 'vitest';
import { allowedMethodsOf } from './allowed-methods.ts';

describe('the methods a path of the contract table takes', () => {
  const sut = allowedMethodsOf(OPERATIONS);

  it.each([
    ['/api/v1/invoices', ['GET', 'HEAD', 'POST']],
    ['/api/v1/invoices/in_0190f3e2c1b27a8e9d1f3c4b5a697887', ['DELETE', 'GET', 'HEAD', 'PATCH']],
    ['/api/v1/invoices/anything/finalize', ['POST']],
    ['/i/some-token', ['GET', 'HEAD']],
    ['/api/v1/openapi.json', ['GET', 'HEAD']],
  ])('%s takes %j', (path, methods) => {
    expect(sut(path)).toEqual(methods);
  });

  it.each(['/api/v1/nothing', '/api/v1/invoices/', '/api/v1/invoices//finalize', '/api/v1/invoices/x/y/z'])('%s is no known path', (path) => {
    expect(sut(path)).toBeUndefined();
  });
});
