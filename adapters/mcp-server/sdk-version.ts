/**
 * The version of the installed MCP TypeScript SDK, for error messages about its internals.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const SDK = '@modelcontextprotocol/sdk';

/**
 * The `version` of the `@modelcontextprotocol/sdk` that `from` resolves, or `'unknown'` when it
 * cannot be read (the version only decorates error messages, so reading it never throws).
 *
 * The SDK 1.x `exports` map has no `./package.json` entry: its `./*` pattern turns that request
 * into `dist/cjs/package.json`, a `{"type": …}` stub without a version, and its `.` entry names a
 * file that some releases do not ship. So each of a few entries is tried, and from the first that
 * resolves the search walks up to the manifest that names the SDK.
 *
 * @param from - module URL or path to resolve the SDK from (this module when omitted)
 * @example
 * ```ts
 * installedSdkVersion(); // '1.32.2'
 * ```
 */
export function installedSdkVersion(from: string = import.meta.url): string {
  const cached = versions.get(from);
  if (cached !== undefined) return cached;
  const found = findVersion(createRequire(from)) ?? 'unknown';
  versions.set(from, found);
  return found;
}

const versions = new Map<string, string>();

// The server entry is the one these adapters import, so it resolves wherever they work.
const ENTRIES = [`${SDK}/package.json`, `${SDK}/server/index.js`, SDK];

function findVersion(require: NodeJS.Require): string | undefined {
  for (const entry of ENTRIES) {
    const resolved = attempt(() => require.resolve(entry));
    if (resolved === undefined) continue;
    for (let dir = dirname(resolved); ; dir = dirname(dir)) {
      const version = sdkVersionIn(join(dir, 'package.json'));
      if (version !== undefined) return version;
      if (dirname(dir) === dir) break;
    }
  }
  return undefined;
}

function sdkVersionIn(manifest: string): string | undefined {
  const parsed = attempt(() => JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown; version?: unknown });
  return parsed?.name === SDK && typeof parsed.version === 'string' ? parsed.version : undefined;
}

function attempt<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}
