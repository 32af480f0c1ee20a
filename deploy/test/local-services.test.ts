import { LOCAL_SERVICE_PORTS } from '@invoicing/testing';
import { describe, expect, it } from 'vitest';
import { localPortOf, SERVICE_NAMES } from '../local/services.ts';
import { loadSettings, SERVICES as SERVICE_FOLDERS } from './support/services.ts';

describe('the services npm start runs (deploy/local/services.ts)', () => {
  it('lists every service under services/ once, the gateway last', () => {
    expect([...SERVICE_NAMES].sort()).toEqual([...SERVICE_FOLDERS].sort());
    expect(new Set(SERVICE_NAMES).size).toBe(SERVICE_NAMES.length);
    expect(SERVICE_NAMES.at(-1)).toBe('gateway');
  });

  it('puts each service on its own default port from the default SERVICE_PORT_BASE and PORT', async () => {
    const portOf = localPortOf(3100, 8080);
    for (const name of SERVICE_NAMES) expect(portOf(name), name).toBe((await loadSettings(name)).defaultPort);
  });

  it('stays within the ports the tests keep free after SERVICE_PORT_BASE (freePortBase)', () => {
    const portOf = localPortOf(0, -1);
    for (const name of SERVICE_NAMES.filter((service) => service !== 'gateway')) expect(portOf(name), name).toBeLessThanOrEqual(LOCAL_SERVICE_PORTS);
  });
});
