/** Runs `work` over `items` with at most `concurrency` at a time, like that many clients. */
export const asClients = async <T, R>(concurrency: number, items: readonly T[], work: (item: T, index: number) => Promise<R>): Promise<R[]> => {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!, index);
      }
    }),
  );
  return results;
};
