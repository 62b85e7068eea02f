/**
 * What `mcp-tasks call` and `mcp-tasks tasks result` print while they follow a task, in one of four
 * modes: on a terminal one live line on stderr (status, elapsed, progress with the status message,
 * as `progressText` writes it) with partial results and subtasks printed above it; without a
 * terminal plain lines on stderr (a `progress:` line per report); with
 * `--json` one JSON object per line on stdout and nothing else there; with `--quiet` nothing but
 * the result and errors. The result itself always goes to stdout.
 *
 * @module
 */
import type { CallToolResult } from '../wire/mcp-shapes.js';
import type { TaskUpdate } from '../wire/task-call.types.js';
import { partialText } from '../wire/task-updates.js';
import { progressOfText, progressText } from '../dialects/progress-text.js';
import type { TaskProgress } from '../../machines/index.js';
import { safeJson, safeLine, safeText } from './terminal-safe.js';

/** The four ways to print. */
export type OutputMode = 'live' | 'lines' | 'json' | 'quiet';

/** Where the output goes (process.stdout / process.stderr; tests pass their own). */
export interface OutputStreams {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: {
    write(text: string): unknown;
    readonly isTTY?: boolean;
    /** Whether writes queue up unread (a slow or stopped reader): progress is then coalesced. */
    readonly writableNeedDrain?: boolean;
    once?(event: 'drain', listener: () => void): unknown;
  };
}

/**
 * The mode the flags and the terminal ask for.
 *
 * @example
 * ```ts
 * outputMode({ json: false, quiet: false }, process.stderr); // 'live' on a terminal, else 'lines'
 * ```
 */
export function outputMode(flags: { readonly json?: boolean | undefined; readonly quiet?: boolean | undefined }, stderr: { readonly isTTY?: boolean }): OutputMode {
  if (flags.json) return 'json';
  if (flags.quiet) return 'quiet';
  return stderr.isTTY === true ? 'live' : 'lines';
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * Prints one followed call.
 *
 * @example
 * ```ts
 * const out = new CallOutput('lines', process);
 * out.started('t1', undefined);
 * out.update({ type: 'status', task });
 * out.result(result);
 * out.close();
 * ```
 */
export class CallOutput {
  readonly mode: OutputMode;
  readonly #io: OutputStreams;
  readonly #since = Date.now();
  #status = '';
  #message: string | null = null;
  #progress: TaskProgress | null = null;
  #frame = 0;
  #lineShown = false;
  #ticker: NodeJS.Timeout | undefined;
  #lastStatusLine = '';
  /** The latest progress line held back while stderr is not drained (only the latest is written). */
  #heldProgress: string | undefined;
  #waitingForDrain = false;
  /** While a question is asked on the terminal, the live line stays down. */
  #asking = 0;

  readonly #prefix: string;

  /** @param prefix - what error sentences start with, e.g. `mcp-tasks call` */
  constructor(mode: OutputMode, io: OutputStreams, prefix = 'mcp-tasks') {
    this.mode = mode;
    this.#io = io;
    this.#prefix = prefix;
    // The elapsed time moves on between updates.
    if (mode === 'live') this.#ticker = setInterval(() => this.#draw(), 100).unref();
  }

  /** The call became a task (the server answered with one). */
  started(taskId: string, sessionId: string | undefined): void {
    if (this.mode === 'json') return this.#json({ type: 'task', taskId, ...(sessionId !== undefined && { sessionId }) });
    this.#above(`task ${safeLine(taskId)}`);
  }

  /** One update of the task. */
  update(update: TaskUpdate): void {
    if (this.mode === 'json') return this.#json(update.type === 'status' ? { type: 'status', taskId: update.task.taskId, status: update.task.status, statusMessage: update.task.statusMessage } : update);
    switch (update.type) {
      case 'status': {
        this.#status = update.task.status;
        // A message a server left from while it worked says nothing once the task completed.
        this.#message = update.task.status === 'completed' ? null : update.task.statusMessage;
        if (this.mode === 'live') return this.#draw();
        const line = `status: ${safeLine(update.task.status)}${this.#message ? ` (${safeLine(this.#message)})` : ''}`;
        if (line !== this.#lastStatusLine) this.#above(line);
        this.#lastStatusLine = line;
        return;
      }
      case 'progress': {
        const { progress, total, message } = update;
        this.#progress = { progress, ...(total !== undefined && { total }), ...(message !== undefined && { message }) };
        if (this.mode === 'live') return this.#draw();
        return this.#progressLine(`progress: ${safeLine(progressText(this.#progress))}`);
      }
      case 'partial':
        return this.#above(`partial ${safeLine(String(update.seq))}: ${safeText(partialText(update.content))}`);
      case 'subtask':
        return this.#above(`subtask ${safeLine(update.taskId)}: ${safeLine(update.status)}`);
      case 'input':
        // The answerer prints the question itself, as it asks it.
        return;
    }
  }

  /** The result, on stdout (in `--json` mode as one `{"type":"result"}` line). */
  result(result: CallToolResult): void {
    this.#clearLine();
    if (this.mode === 'json') return this.#json({ type: 'result', result });
    for (const item of result.content) this.#io.stdout.write(item.type === 'text' ? `${safeText(String(item.text))}\n` : `${safeJson(item)}\n`);
    if (result.structuredContent !== undefined) this.#io.stdout.write(`${safeJson(result.structuredContent)}\n`);
  }

  /**
   * One human sentence on stderr (in every mode; `--json` also gets an `{"type":"error"}` line on
   * stdout, so a script reading only stdout sees why it ended).
   */
  error(sentence: string, exitCode: number): void {
    this.#clearLine();
    this.#flushProgress();
    // The sentence quotes what the server said (its error text, ids): it stays one line.
    this.#io.stderr.write(`${this.#prefix}: ${safeLine(sentence)}\n`);
    if (this.mode === 'json') this.#json({ type: 'error', message: sentence, exitCode });
  }

  /** A note for people (not an error), on stderr; not in `--quiet` or `--json`. */
  note(sentence: string): void {
    if (this.mode === 'quiet' || this.mode === 'json') return;
    this.#above(safeLine(sentence));
  }

  /**
   * A line on stderr in every mode (the status of a task `call` hosts for the server), above the
   * live line; made one safe line.
   */
  aside(line: string): void {
    this.#clearLine();
    this.#flushProgress();
    this.#io.stderr.write(`${safeLine(line)}\n`);
    this.#draw();
  }

  /**
   * Takes the live line down for a question asked on the terminal: the spinner line is ended, and
   * nothing redraws it (which would wipe the prompt and what is typed) until the returned function
   * is called.
   */
  question(): () => void {
    this.#clearLine();
    this.#flushProgress();
    this.#asking++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#asking--;
      this.#draw();
    };
  }

  /** Stops the live line. */
  close(): void {
    if (this.#ticker !== undefined) clearInterval(this.#ticker);
    this.#clearLine();
    this.#flushProgress();
  }

  #json(value: unknown): void {
    this.#io.stdout.write(`${safeJson(value)}\n`);
  }

  // A line for people: above the live line on a terminal, a plain stderr line otherwise. Callers
  // pass server values through the sanitiser; a held progress line goes out first, in order.
  #above(line: string): void {
    if (this.mode === 'quiet') return;
    this.#clearLine();
    this.#flushProgress();
    this.#io.stderr.write(`${line}\n`);
    if (this.mode === 'live') this.#draw();
  }

  // A progress line: while stderr is not drained (a slow reader, a flood of reports) only the
  // latest is kept and written once it drains, so a flood cannot queue unbounded output.
  #progressLine(line: string): void {
    if (this.mode === 'quiet') return;
    if (this.#stderrBacklogged()) {
      this.#heldProgress = line;
      return;
    }
    this.#io.stderr.write(`${line}\n`);
  }

  #stderrBacklogged(): boolean {
    const stderr = this.#io.stderr;
    if (stderr.writableNeedDrain !== true || stderr.once === undefined) return false;
    if (!this.#waitingForDrain) {
      this.#waitingForDrain = true;
      stderr.once('drain', () => {
        this.#waitingForDrain = false;
        this.#flushProgress();
        this.#draw();
      });
    }
    return true;
  }

  #flushProgress(): void {
    const held = this.#heldProgress;
    if (held === undefined) return;
    this.#heldProgress = undefined;
    this.#io.stderr.write(`${held}\n`);
  }

  #draw(): void {
    if (this.mode !== 'live' || this.#status === '' || this.#asking > 0) return;
    // A redraw while stderr is not drained would only queue; the next one after 'drain' shows the latest.
    if (this.#stderrBacklogged()) return;
    const elapsed = `${((Date.now() - this.#since) / 1000).toFixed(1)}s`;
    // The status message may carry the progress already (the 2026-07-28 wire writes it there): shown once.
    const message = progressOfText(this.#message)?.message ?? this.#message;
    const doing = this.#progress !== null && this.#status !== 'completed' ? progressText(this.#progress, message) : (message ?? '');
    const parts = [SPINNER[this.#frame++ % SPINNER.length], safeLine(this.#status), elapsed, safeLine(doing)].filter((p) => p !== '');
    this.#io.stderr.write(`\r\x1b[2K${parts.join('  ')}`);
    this.#lineShown = true;
  }

  #clearLine(): void {
    if (!this.#lineShown) return;
    this.#io.stderr.write('\r\x1b[2K');
    this.#lineShown = false;
  }
}
