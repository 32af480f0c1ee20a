/**
 * Group commit: work for one key (finalize's: a workspace, so one number series) that arrives
 * while a batch of that key is being committed waits, and goes in the next batch, up to
 * `maxBatch` members; so a burst costs one transaction (one fsync, one turn on the series' counter
 * row) per batch rather than per member. Nothing waits on a timer: a member that finds no batch
 * running starts one at once.
 *
 * `commit` answers each member in order, or throws; a batch that throws is retried member by
 * member, so a failure is charged to the member that causes it and the others still commit.
 * With `maxBatch` 1 there is no queue at all: every member commits on its own, concurrently.
 */
export interface GroupCommitOptions<M, R> {
  maxBatch: number;
  commit: (members: readonly M[]) => Promise<R[]>;
  /** Each batch's size as it commits (a metric), retries of one member included. */
  onBatch?: (size: number) => void;
}

interface Waiting<M, R> {
  member: M;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export const groupCommit = <M, R>({ maxBatch, commit, onBatch = () => {} }: GroupCommitOptions<M, R>) => {
  const queues = new Map<string, Waiting<M, R>[]>();
  let waiting = 0;

  const commitAlone = async (member: M): Promise<R> => {
    onBatch(1);
    const [result] = await commit([member]);
    return result as R;
  };

  const settle = async (batch: readonly Waiting<M, R>[]): Promise<void> => {
    if (batch.length === 1) {
      const [only] = batch;
      await commitAlone(only!.member).then(only!.resolve, only!.reject);
      return;
    }
    let results: R[];
    try {
      onBatch(batch.length);
      results = await commit(batch.map((entry) => entry.member));
    } catch {
      // Rolled back whole: nothing it took (numbers included) was kept. Each member alone now.
      for (const entry of batch) await commitAlone(entry.member).then(entry.resolve, entry.reject);
      return;
    }
    batch.forEach((entry, index) => entry.resolve(results[index]!));
  };

  const drain = async (key: string, queue: Waiting<M, R>[]): Promise<void> => {
    while (queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      waiting -= batch.length;
      await settle(batch);
    }
    queues.delete(key);
  };

  return {
    /** Commits `member` in the next batch of `key`; its own result, or its own error. */
    submit: (key: string, member: M): Promise<R> => {
      if (maxBatch === 1) return commitAlone(member);
      return new Promise<R>((resolve, reject) => {
        const running = queues.get(key);
        if (running) {
          running.push({ member, resolve, reject });
          waiting++;
          return;
        }
        // This member starts the batch: it leaves the queue at once, so the queue holds only those waiting.
        const queue: Waiting<M, R>[] = [];
        queues.set(key, queue);
        void settle([{ member, resolve, reject }]).then(() => drain(key, queue));
      });
    },
    /** Members waiting for the next batch, all keys together. */
    waiting: (): number => waiting,
  };
};

export type GroupCommit<M, R> = ReturnType<typeof groupCommit<M, R>>;
