import { v7 as uuidv7 } from 'uuid';

/** A new time-ordered primary key (UUIDv7, dashed). */
export const newId = (): string => uuidv7();
