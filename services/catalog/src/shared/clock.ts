/** The time new rows and changes are stamped with; tests freeze it to give many rows one `created`. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
