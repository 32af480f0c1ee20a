import { describe, expect, it } from 'vitest';
import { notFound as sut } from './app-error.ts';

describe('notFound', () => {
  it.each([
    ['a public ID', 'cus_0190f3e2c1b27a8e9d1f3c4b5a697887'],
    ['a dashed UUID', '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887'],
  ])('names %s in its detail', (_, id) => {
    expect(sut('customer', id).message).toBe(`No customer with id '${id}'.`);
  });

  it.each([
    ['an API key', `inv_live_${'A1b2'.repeat(16)}x`],
    ['a webhook secret', 'whsec_NgY9dan6gm+B08GcT54JPgoXkqJ0I+98h3PncgyDR8E='],
    ['markup', '<script>alert(1)</script>'],
  ])('never echoes %s sent where an ID goes', (_, id) => {
    const error = sut('customer', id);
    expect(error.message).toBe('No customer with that id.');
    expect(error.message).not.toContain(id);
  });
});
