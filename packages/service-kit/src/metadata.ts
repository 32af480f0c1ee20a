import { METADATA_KEYS_MAX, type Metadata, type MetadataInput } from '@invoicing/contracts';
import { invalidRequest } from './app-error.ts';

/**
 * An object's metadata after a write (decisions.md "metadata"): the keys sent are set, a key sent
 * as "" is removed, the others stay. More than 50 keys after the merge is a 400, so the write
 * changes nothing. A create merges into `{}`.
 */
export const mergeMetadata = (current: Metadata, sent: MetadataInput | undefined): Metadata => {
  const merged: Metadata = { ...current };
  for (const [key, value] of Object.entries(sent ?? {})) {
    if (value === '') delete merged[key];
    else merged[key] = value;
  }
  const count = Object.keys(merged).length;
  if (count > METADATA_KEYS_MAX) {
    throw invalidRequest(`metadata holds at most ${METADATA_KEYS_MAX} keys.`, [{ path: 'metadata', message: `would hold ${count} keys after the merge; at most ${METADATA_KEYS_MAX}` }]);
  }
  return merged;
};
