import { randomUUID } from 'node:crypto';
import { dataSpaceOf } from './data-space.ts';
import { describe, expect, it } from 'vitest';
import { withFieldsAddedSince } from './earlier-event-data.ts';

describe('event data published before livemode and metadata', () => {
  const workspace = randomUUID();

  it('gets livemode from its data space on every object, and empty metadata where objects carry it', () => {
    const earlier = { object: { id: 'in_1', object: 'invoice', lines: { object: 'list', data: [{ id: 'ii_1', object: 'invoiceitem' }] } } };
    expect(withFieldsAddedSince(earlier, dataSpaceOf(workspace, 'test'))).toEqual({
      object: { id: 'in_1', object: 'invoice', livemode: false, metadata: {}, lines: { object: 'list', data: [{ id: 'ii_1', object: 'invoiceitem', livemode: false }] } },
    });
  });

  it('keeps what an object already says', () => {
    const current = { object: { id: 'cus_1', object: 'customer', livemode: true, metadata: { crm: '7' } } };
    expect(withFieldsAddedSince(current, dataSpaceOf(workspace, 'test'))).toEqual(current);
    expect(withFieldsAddedSince('not an object', workspace)).toBe('not an object');
  });
});
