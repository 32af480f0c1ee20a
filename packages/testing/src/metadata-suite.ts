import { randomUUID } from 'node:crypto';
import { METADATA_KEY_MAX, METADATA_KEYS_MAX, METADATA_VALUE_MAX } from '@invoicing/contracts';
import { describe, expect, it } from 'vitest';
import { expectProblem, type InjectedReply } from './expect-problem.ts';

type Method = 'GET' | 'POST' | 'PATCH';
type Pairs = Record<string, string>;
interface Resource {
  id: string;
  metadata: Pairs;
}

export interface MetadataSubject {
  /** The list path, such as `/api/v1/customers`; an object is `${path}/${id}` and changes by PATCH there. */
  path: string;
  /** A request as the gateway forwards it for `workspaceId`. */
  send: (workspaceId: string, method: Method, url: string, body?: unknown) => Promise<InjectedReply>;
  /** Creates one object in the workspace with `fields` (such as `{ metadata }`) added to a valid body; the reply as it came. */
  create: (workspaceId: string, fields: Record<string, unknown>) => Promise<InjectedReply>;
}

const pairs = (count: number, prefix = 'k'): Pairs => Object.fromEntries(Array.from({ length: count }, (_, index) => [`${prefix}${index}`, 'v']));

/**
 * decisions.md "metadata", the same on every object that has it: set on create, merged by key on
 * update with "" removing a key, the limits refused with a 400 that changes nothing, and the
 * `metadata[key]=value` list filter, within the workspace only.
 */
export const describeMetadata = (name: string, subject: MetadataSubject): void => {
  const dataOf = <T>(reply: InjectedReply, status: number): T => {
    expect(reply.statusCode, reply.body).toBe(status);
    return reply.json<{ data: T }>().data;
  };
  const create = async (workspaceId: string, metadata?: Pairs): Promise<Resource> =>
    dataOf<Resource>(await subject.create(workspaceId, metadata === undefined ? {} : { metadata }), 201);
  const retrieve = async (workspaceId: string, id: string): Promise<Resource> => dataOf<Resource>(await subject.send(workspaceId, 'GET', `${subject.path}/${id}`), 200);
  const update = (workspaceId: string, id: string, metadata: unknown) => subject.send(workspaceId, 'PATCH', `${subject.path}/${id}`, { metadata });
  const listed = async (workspaceId: string, query: string): Promise<string[]> =>
    dataOf<Resource[]>(await subject.send(workspaceId, 'GET', `${subject.path}?limit=100&${query}`), 200)
      .map((row) => row.id)
      .sort();

  describe(`${name} metadata`, () => {
    it('is {} when none is sent, and as sent on create', async () => {
      const workspaceId = randomUUID();
      expect((await create(workspaceId)).metadata).toEqual({});
      const created = await create(workspaceId, { order_id: '6735', channel: 'web', dropped: '' });
      expect(created.metadata).toEqual({ order_id: '6735', channel: 'web' });
      expect((await retrieve(workspaceId, created.id)).metadata).toEqual({ order_id: '6735', channel: 'web' });
    });

    it('merges an update by key, and a key sent as "" is removed', async () => {
      const workspaceId = randomUUID();
      const { id } = await create(workspaceId, { order_id: '6735', channel: 'web', batch: '7' });
      const updated = dataOf<Resource>(await update(workspaceId, id, { channel: 'phone', batch: '', note: 'rush' }), 200);
      expect(updated.metadata).toEqual({ order_id: '6735', channel: 'phone', note: 'rush' });
      expect((await retrieve(workspaceId, id)).metadata).toEqual(updated.metadata);
      expect(dataOf<Resource>(await subject.send(workspaceId, 'PATCH', `${subject.path}/${id}`, {}), 200).metadata).toEqual(updated.metadata);
    });

    it.each<[string, Pairs]>([
      [`${METADATA_KEYS_MAX + 1} keys`, pairs(METADATA_KEYS_MAX + 1)],
      [`a key of ${METADATA_KEY_MAX + 1} characters`, { ['k'.repeat(METADATA_KEY_MAX + 1)]: 'v' }],
      [`a value of ${METADATA_VALUE_MAX + 1} characters`, { note: 'v'.repeat(METADATA_VALUE_MAX + 1) }],
      ['an empty key', { '': 'v' }],
    ])('refuses %s with a 400 that changes nothing, on create and on update', async (_, metadata) => {
      const workspaceId = randomUUID();
      expectProblem(await subject.create(workspaceId, { metadata }), 400, 'invalid_request');
      expect(await listed(workspaceId, '')).toEqual([]);
      const { id } = await create(workspaceId, { kept: 'yes' });
      expectProblem(await update(workspaceId, id, metadata), 400, 'invalid_request');
      expect((await retrieve(workspaceId, id)).metadata).toEqual({ kept: 'yes' });
    });

    it.each([['a number', { n: 1 }], ['null', null], ['an array', ['a']], ['a nested object', { a: { b: 'c' } }]])('refuses %s as metadata', async (_, metadata) => {
      const workspaceId = randomUUID();
      const { id } = await create(workspaceId, { kept: 'yes' });
      expectProblem(await update(workspaceId, id, metadata), 400, 'invalid_request');
      expect((await retrieve(workspaceId, id)).metadata).toEqual({ kept: 'yes' });
    });

    it(`refuses an update that would leave more than ${METADATA_KEYS_MAX} keys, and keeps the metadata as it was`, async () => {
      const workspaceId = randomUUID();
      const full = pairs(METADATA_KEYS_MAX);
      const { id } = await create(workspaceId, full);
      expectProblem(await update(workspaceId, id, { extra: 'v' }), 400, 'invalid_request', ['metadata']);
      expect((await retrieve(workspaceId, id)).metadata).toEqual(full);
      // Removing one key while adding another stays within the limit.
      expect(dataOf<Resource>(await update(workspaceId, id, { k0: '', extra: 'v' }), 200).metadata).toEqual({ ...pairs(METADATA_KEYS_MAX), k0: undefined, extra: 'v' });
    });

    it('filters a list by one pair and by two, all of which must match, within the workspace', async () => {
      const workspaceId = randomUUID();
      const gold = await create(workspaceId, { tier: 'gold', region: 'eu', order_id: 'A-1' });
      const goldUs = await create(workspaceId, { tier: 'gold', region: 'us' });
      await create(workspaceId, { tier: 'silver', region: 'eu' });
      await create(workspaceId);
      const other = randomUUID();
      await create(other, { tier: 'gold', region: 'eu', order_id: 'A-1' });

      expect(await listed(workspaceId, 'metadata[tier]=gold')).toEqual([goldUs.id, gold.id].sort());
      expect(await listed(workspaceId, 'metadata[tier]=gold&metadata[region]=eu')).toEqual([gold.id]);
      expect(await listed(workspaceId, `metadata%5Border_id%5D=${encodeURIComponent('A-1')}`)).toEqual([gold.id]);
      expect(await listed(workspaceId, 'metadata[tier]=bronze')).toEqual([]);
      expect(await listed(other, 'metadata[tier]=gold')).toHaveLength(1);
      expect(await listed(randomUUID(), 'metadata[tier]=gold')).toEqual([]);
    });

    it('pages a filtered list with its cursor', async () => {
      const workspaceId = randomUUID();
      const matching: string[] = [];
      for (let index = 0; index < 3; index += 1) {
        matching.push((await create(workspaceId, { batch: 'b1' })).id);
        await create(workspaceId, { batch: 'b2' });
      }
      const first = await subject.send(workspaceId, 'GET', `${subject.path}?limit=2&metadata[batch]=b1`);
      const page = first.json<{ data: Resource[]; next_cursor: string | null }>();
      expect(page.data).toHaveLength(2);
      const second = await subject.send(workspaceId, 'GET', `${subject.path}?limit=2&metadata[batch]=b1&cursor=${encodeURIComponent(page.next_cursor!)}`);
      const rest = second.json<{ data: Resource[]; next_cursor: string | null }>();
      expect(rest.next_cursor).toBeNull();
      expect([...page.data, ...rest.data].map((row) => row.id).sort()).toEqual(matching.sort());
    });

    it.each([
      ['metadata=x', 'metadata'],
      ['metadata[]=x', 'metadata'],
      ['metadata[tier]=a&metadata[tier]=b', 'metadata'],
      ['metadata[tier]=', 'metadata'],
      ['metadata[tier]=gold&metadata=x', 'metadata[tier]'],
      [`metadata[${'k'.repeat(METADATA_KEY_MAX + 1)}]=v`, 'metadata'],
      ['metadata[__proto__]=x&metadata[constructor]=y', undefined],
    ])('answers a malformed filter %s with a 400 (or a list), never a 5xx', async (query, path) => {
      const reply = await subject.send(randomUUID(), 'GET', `${subject.path}?${query}`);
      if (path === undefined) {
        expect(reply.statusCode, reply.body).toBeLessThan(500);
        return;
      }
      const problem = expectProblem(reply, 400, 'invalid_request');
      expect(problem.errors?.map((error) => error.path).join(' ')).toContain(path);
    });
  });
};
