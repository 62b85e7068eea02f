/**
 * `mcp-tasks call` as a child process, run as a user would, with a hook that may type lines on
 * its stdin once its output (or anything else the test watches) says it is time.
 */
import { spawn } from 'node:child_process';
import { CLI_PATH, killPid, REPO_ROOT } from './process.js';

/** How one `call` ended. */
export interface CallRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of {@link runCall}. */
export interface RunCallOptions {
  /**
   * Called on every chunk of stderr with everything so far; `type` writes a line on stdin. Async
   * work may continue after it returns (e.g. wait for the server's log, then type).
   */
  readonly onStderr?: (stderr: string, type: (line: string) => void) => void;
  /** Kills the process after this long, ms. @default 20000 */
  readonly timeout?: number;
}

/**
 * Runs `node dist/adapters/cli/main.js call …args`.
 *
 * @example
 * ```ts
 * const run = await runCall([url, 'ask_name'], { onStderr: (err, type) => /Name: $/.test(err) && type('Ada') });
 * ```
 */
export function runCall(args: readonly string[], options: RunCallOptions = {}): Promise<CallRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_PATH, 'call', ...args], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const type = (line: string): void => void child.stdin.write(`${line}\n`);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      options.onStderr?.(stderr, type);
    });
    const timer = setTimeout(() => killPid(child.pid), options.timeout ?? 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
