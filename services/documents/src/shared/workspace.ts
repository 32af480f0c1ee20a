import { parsePublicId } from '@invoicing/contracts';
import { AppError, type Caller } from '@invoicing/service-kit';

/** The caller's workspace as the dashed UUID stored on every row (the gateway may send the `ws_` form). */
export const workspaceOf = (caller: Caller): string => {
  const workspaceId = parsePublicId('workspace', caller.workspaceId);
  if (workspaceId === undefined) throw new AppError('unauthenticated', 'The workspace header is not a workspace ID.');
  return workspaceId;
};
