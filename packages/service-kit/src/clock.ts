/** Where time comes from: the system clock in production, a controllable one in tests. */
export interface Clock {
  now: () => Date;
}

export const systemClock: Clock = { now: () => new Date() };
