import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inInvoiceGroups } from './payment.domain.ts';

describe('inInvoiceGroups', () => {
  it('groups the payments asked for by invoice, invoices in ID order, each invoice’s payments together in the order asked', () => {
    const asked = ['c', 'a', 'd', 'a', 'b', 'c', 'e'].map((invoiceId) => ({ invoiceId }));
    expect(inInvoiceGroups(asked, 2)).toEqual([
      [1, 3, 4], // a, a, b
      [0, 2, 5], // c, d, c
      [6], // e
    ]);
    expect(inInvoiceGroups([], 2)).toEqual([]);
  });

  it('places every payment once, no group holds more than its size of invoices, and the groups lock in one ascending order', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('01', '02', '03', '04', '05', '06', '07'), { maxLength: 40 }), fc.integer({ min: 1, max: 5 }), (ids, size) => {
        const asked = ids.map((invoiceId) => ({ invoiceId }));
        const groups = inInvoiceGroups(asked, size);
        expect(groups.flat().sort((a, b) => a - b)).toEqual(asked.map((_, position) => position));
        const invoicesOf = groups.map((positions) => [...new Set(positions.map((position) => ids[position]!))]);
        for (const invoices of invoicesOf) expect(invoices.length).toBeLessThanOrEqual(size);
        expect(invoicesOf.flatMap((invoices) => invoices.sort())).toEqual([...new Set(ids)].sort());
        for (const positions of groups) expect(positions).toEqual([...positions].sort((a, b) => a - b));
      }),
    );
  });
});
