import { v5 as uuidV5, version as uuidVersion } from 'uuid';

/**
 * Live and test data of a workspace live apart (decisions.md "Test mode"): every row of every
 * service belongs to a data space, the `workspace_id` its queries already filter on. A live key's
 * space is its workspace's own id (a random, version 4 UUID); a test key's is the name-based
 * (version 5) UUID of that id in the namespace below. So every workspace-isolation rule, number
 * series, idempotency record and webhook endpoint is per mode with no second filter to forget,
 * and a row tells its mode by its space id's version digit.
 */
const TEST_MODE_NAMESPACE = '5b0c6a2e-7f4d-4a8e-9c31-2d6f0e8b7a15';

export type Mode = 'live' | 'test';

/** The data space of a workspace in a mode: the workspace id itself when live. */
export const dataSpaceOf = (workspaceId: string, mode: Mode): string => (mode === 'live' ? workspaceId : uuidV5(workspaceId, TEST_MODE_NAMESPACE));

/** Whether a data space (a row's `workspace_id`) holds live data: false only for a test space. */
export const livemodeOf = (spaceId: string): boolean => uuidVersion(spaceId) !== 5;
