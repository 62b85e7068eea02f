/**
 * The SDKs are optional peer dependencies: an embedder installs only the one it uses. An adapter
 * entry loads its implementation through {@link loadWithPeer}, so that importing the adapter for
 * an SDK that is not installed fails with an error that names the package and how to install it,
 * rather than a resolution error deep in the adapter's files.
 *
 * @module
 */

/**
 * A peer dependency an adapter needs is not installed.
 *
 * @example
 * ```ts
 * if (error instanceof MissingPeerDependencyError) console.error(error.peer); // '@modelcontextprotocol/server'
 * ```
 */
export class MissingPeerDependencyError extends Error {
  override readonly name = 'MissingPeerDependencyError';
  constructor(
    /** The package that is missing. */
    readonly peer: string,
    entry: string,
    range: string,
    cause: unknown,
  ) {
    super(`${entry} needs ${peer} ${range}, an optional peer dependency of mcp-task-actors that is not installed: npm install ${peer}@'${range}'`, { cause });
  }
}

/** Whether `error` says the package `peer` (or a file of it) cannot be found. */
function isMissing(error: unknown, peer: string): boolean {
  const e = error as { code?: unknown; message?: unknown };
  return (e?.code === 'ERR_MODULE_NOT_FOUND' || e?.code === 'MODULE_NOT_FOUND') && typeof e.message === 'string' && e.message.includes(`'${peer}`);
}

/**
 * Loads an adapter's implementation, turning a missing `peer` into {@link MissingPeerDependencyError}.
 *
 * @example
 * ```ts
 * const api = await loadWithPeer('@modelcontextprotocol/server', '^2.4.0', 'mcp-task-actors/adapters/mcp-server-v2', () => import('./api.js'));
 * ```
 */
export async function loadWithPeer<T>(peer: string, range: string, entry: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissing(error, peer)) throw new MissingPeerDependencyError(peer, entry, range, error);
    throw error;
  }
}
