// What the global setup hands to every test file through Vitest's provide/inject.
declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of a PostgreSQL server's `postgres` database; tests create their own databases on it. */
    databaseServerUrl: string;
    natsUrl: string;
    /** URL of a Redis (or Valkey) server; tests keep apart by key prefix, never by flushing it. */
    redisUrl: string;
  }
}

export {};
