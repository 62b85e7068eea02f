/**
 * The SDK each `mcp-tasks` command needs, loaded on demand: both SDKs are optional peer
 * dependencies, so a command loads its SDK only when it runs, and a missing one fails with the
 * adapters' {@link MissingPeerDependencyError} naming the command, the package and the
 * `npm install` that adds it.
 *
 * @module
 */
import { loadWithPeer, MissingPeerDependencyError } from '../peer-dependency.js';

/** A peer dependency: the package and the range this package supports. */
export interface SdkPeer {
  readonly peer: string;
  readonly range: string;
}

/** SDK v1, which `serve` (the default) and `call` are built on. */
export const SDK_V1: SdkPeer = { peer: '@modelcontextprotocol/sdk', range: '>=1.25.0 <=1.32.2' };
/** SDK v2's server, which `serve --sdk v2` is built on. */
export const SDK_V2_SERVER: SdkPeer = { peer: '@modelcontextprotocol/server', range: '^2.4.0' };

/**
 * Loads what `command` needs of `sdk`; a missing `sdk` becomes a {@link MissingPeerDependencyError}
 * that names `command`, also when an adapter further down the imports found it missing first.
 *
 * @param sdk - the peer dependency
 * @param command - the command as the user typed it, e.g. `mcp-tasks serve --sdk v2`
 * @param load - the dynamic import
 * @throws MissingPeerDependencyError when `sdk` is not installed
 * @example
 * ```ts
 * const { call } = await loadForCommand(SDK_V1, 'mcp-tasks call', () => import('./call.js'));
 * ```
 */
export async function loadForCommand<T>(sdk: SdkPeer, command: string, load: () => Promise<T>): Promise<T> {
  try {
    return await loadWithPeer(sdk.peer, sdk.range, command, load);
  } catch (error) {
    // An adapter entry (`adapters/mcp-server`) checks its peer on import and names itself.
    if (error instanceof MissingPeerDependencyError && error.peer === sdk.peer && !error.message.startsWith(`${command} `)) {
      throw new MissingPeerDependencyError(sdk.peer, command, sdk.range, error);
    }
    throw error;
  }
}
