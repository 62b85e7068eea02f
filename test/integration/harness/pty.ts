/**
 * `mcp-tasks` in a pseudo-terminal, through util-linux `script` (no native module needed): the
 * command sees a TTY on stdin, stdout and stderr, as it does in a user's terminal, and the test
 * reads everything the terminal would show (the command's output and the terminal's echo of
 * what is typed) from `script`'s stdout.
 */
import { execFileSync, spawn } from 'node:child_process';
import { CLI_PATH, killPid, REPO_ROOT } from './process.js';

/** Whether `script` (util-linux) is on this machine. */
export function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** How a run in the terminal ended, and what the terminal showed. */
export interface PtyRun {
  readonly code: number | null;
  /** Everything the terminal received (stdout and stderr of the command, and the echo). */
  readonly screen: string;
}

const quote = (arg: string): string => `'${arg.replace(/'/g, `'\\''`)}'`;

/**
 * Runs `node dist/adapters/cli/main.js …args` in a pseudo-terminal. `onScreen` sees all the
 * terminal showed so far on every chunk, and may type (each `type` is sent as typed keys).
 *
 * @example
 * ```ts
 * const run = await runInPty(['call', url, 'ask_name'], { onScreen: (s, type) => /Name: $/.test(s) && type('Ada\r') });
 * ```
 */
export function runInPty(args: readonly string[], options: { readonly onScreen?: (screen: string, type: (keys: string) => void) => void; readonly timeout?: number } = {}): Promise<PtyRun> {
  const command = [process.execPath, CLI_PATH, ...args].map(quote).join(' ');
  return new Promise((resolve) => {
    // -q no banner, -f flush at once, -e the command's exit code, -c the command; no typescript file.
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TERM: 'xterm' } });
    let screen = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      screen += chunk;
      options.onScreen?.(screen, (keys) => void child.stdin.write(keys));
    });
    const timer = setTimeout(() => killPid(child.pid), options.timeout ?? 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, screen });
    });
  });
}
