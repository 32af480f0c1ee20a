/** Where time comes from: the system clock in production, a controllable one in tests. */
export interface Clock {
  now: () => Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock stopped at `at`: "now" for data that lives on a test clock (decisions.md "Test clocks"). */
export const fixedClock = (at: Date): Clock => ({ now: () => new Date(at.getTime()) });
