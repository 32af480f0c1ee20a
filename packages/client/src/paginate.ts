import { unwrap } from './errors.ts';

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * Every item of a list, page after page, for `for await`: give it the call of one page for a
 * cursor (undefined for the first). An error answer is thrown as `InvoicingApiError`.
 *
 * ```ts
 * for await (const invoice of paginate((cursor) => api.GET('/api/v1/invoices', { params: { query: { cursor, limit: 100 } } }))) { … }
 * ```
 */
export async function* paginate<T>(
  pageAt: (cursor: string | undefined) => Promise<{ data?: Page<T>; error?: unknown; response: Response }>,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await unwrap(pageAt(cursor));
    yield* page.data;
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
}
