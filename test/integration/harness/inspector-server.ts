/**
 * `mcp-tasks serve --http 0 --inspect 0`: the demo server with its inspector page, as a child
 * process. The server logs the page's address on stderr as a JSON line whose `msg` mentions the
 * inspector; this finds it there.
 *
 * @module
 */
import { isRecord } from './types.js';
import { killChild, messageOf, spawnHttpServer, withStderr, type HttpServerProcess } from './process.js';

const STARTUP_TIMEOUT_MS = 10_000;
const URL_IN_TEXT = /https?:\/\/[^\s"'<>]+/;

/** A running demo server with its inspector. */
export interface InspectorServer extends HttpServerProcess, AsyncDisposable {
  /** The inspector page, as logged (with its token, if any). */
  readonly inspectorUrl: string;
}

/** The inspector URL in one stderr line, if the line is the inspector's "listening" log. */
export function inspectorUrlIn(line: string): string | undefined {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(entry)) return undefined;
  const msg = typeof entry['msg'] === 'string' ? entry['msg'] : '';
  if (!/inspector/i.test(msg)) return undefined;
  for (const key of ['url', 'inspectorUrl', 'inspector']) {
    const value = entry[key];
    if (typeof value === 'string' && URL_IN_TEXT.test(value) && !value.endsWith('/mcp')) return value;
  }
  const inMsg = URL_IN_TEXT.exec(msg)?.[0];
  return inMsg !== undefined && !inMsg.endsWith('/mcp') ? inMsg : undefined;
}

/**
 * Spawns `serve --http 0 --inspect 0 [flags]` and waits for both its MCP URL and its inspector URL.
 *
 * @throws Error with the server's stderr when either is not logged within 10 s
 * @example
 * ```ts
 * await using server = await spawnInspectorServer();
 * await page.goto(server.inspectorUrl);
 * ```
 */
export async function spawnInspectorServer(flags: readonly string[] = []): Promise<InspectorServer> {
  const server = await spawnHttpServer(['--inspect', '0', ...flags]);
  const find = (): string | undefined => {
    for (const line of server.stderr().split('\n')) {
      const url = inspectorUrlIn(line.trim());
      if (url !== undefined) return url;
    }
    return undefined;
  };
  try {
    const inspectorUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no stderr log line whose msg mentions the inspector and carries its URL within ${STARTUP_TIMEOUT_MS} ms`));
      }, STARTUP_TIMEOUT_MS);
      const onData = (): void => {
        const url = find();
        if (url !== undefined) {
          cleanup();
          resolve(url);
        }
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
        cleanup();
        reject(new Error(`server exited before its inspector listened (code ${String(code)}, signal ${String(signal)})`));
      };
      const cleanup = (): void => {
        clearTimeout(timer);
        server.child.stderr.off('data', onData);
        server.child.off('exit', onExit);
      };
      server.child.stderr.on('data', onData);
      server.child.once('exit', onExit);
      onData();
    });
    // A token given by flag is not logged: the URL a browser opens carries it, as the operator would add it.
    const given = flags.indexOf('--inspect-token');
    const openUrl = given >= 0 ? `${inspectorUrl}?token=${encodeURIComponent(flags[given + 1]!)}` : inspectorUrl;
    return { ...server, inspectorUrl: openUrl, [Symbol.asyncDispose]: () => server.close() };
  } catch (error) {
    await killChild(server.child);
    throw withStderr(`inspector startup failed (flags ${JSON.stringify(flags)}): ${messageOf(error)}`, server.stderr());
  }
}
