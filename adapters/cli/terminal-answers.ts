/**
 * How `mcp-tasks call` answers a server's questions: elicitation from the terminal (one line per
 * field, read from stdin, so it can be piped) or from `--answer JSON`, and sampling with a canned
 * model reply.
 *
 * @module
 */
import { createInterface } from 'node:readline';
import type { CreateMessageResult, ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { safeLine, safeText } from './terminal-safe.js';

/** Options of {@link LineReader}. */
export interface LineReaderOptions {
  /**
   * Takes the live status line down while a question is asked (ends the spinner's line, stops its
   * redraws that would wipe the prompt and the typed answer); returns what puts it back.
   */
  readonly question?: () => () => void;
  /** Whether the terminal echoes what is typed (a TTY does; piped lines are echoed here). @default input.isTTY */
  readonly echoes?: boolean;
}

/** Lines typed (or piped) on stdin, handed out one per question, in order. */
export class LineReader {
  readonly #queue: string[] = [];
  readonly #waiting: ((line: string | null) => void)[] = [];
  #closed = false;
  readonly #question: (() => () => void) | undefined;
  /** Whether the terminal shows what is typed itself. */
  readonly echoes: boolean;

  /** Whether stdin has ended (nothing more can be typed). */
  get ended(): boolean {
    return this.#closed && this.#queue.length === 0;
  }

  constructor(input: NodeJS.ReadableStream & { readonly isTTY?: boolean } = process.stdin, options: LineReaderOptions = {}) {
    this.#question = options.question;
    this.echoes = options.echoes ?? input.isTTY === true;
    const rl = createInterface({ input, terminal: false });
    rl.on('line', (line) => {
      const next = this.#waiting.shift();
      if (next) next(line);
      else this.#queue.push(line);
    });
    rl.on('close', () => {
      this.#closed = true;
      for (const wake of this.#waiting.splice(0)) wake(null);
    });
  }

  /**
   * Starts asking a question on the terminal (see {@link LineReaderOptions.question}); call what
   * it returns once the question is answered.
   */
  beginQuestion(): () => void {
    return this.#question?.() ?? (() => undefined);
  }

  /**
   * The next line, or `null` once stdin has ended or `signal` aborted. An aborted wait gives up its
   * place, so the line typed next goes to the next question rather than to a cancelled one.
   */
  next(signal?: AbortSignal): Promise<string | null> {
    const line = this.#queue.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.#closed || signal?.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const wake = (got: string | null): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(got);
      };
      const onAbort = (): void => {
        const at = this.#waiting.indexOf(wake);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(null);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(wake);
    });
  }
}

type Field = { type?: string; title?: string; description?: string };

function convert(raw: string, field: Field): string | number | boolean {
  if (field.type === 'number' || field.type === 'integer') return Number(raw);
  if (field.type === 'boolean') return /^(y|yes|true|1)$/i.test(raw.trim());
  return raw;
}

/**
 * Answers an elicitation: with `answer` when given, otherwise by asking each field on stderr and
 * reading a line from stdin; an empty first line (or closed stdin) declines. `signal` (the hosted
 * task's, when the server asked for a task) stops the questions once the server cancelled it.
 *
 * @example
 * ```ts
 * client.setRequestHandler(ElicitRequestSchema, (req) => answerElicitation(req.params, lines, undefined));
 * ```
 */
export async function answerElicitation(
  params: ElicitRequest['params'],
  lines: LineReader,
  answer: Record<string, unknown> | undefined,
  signal?: AbortSignal,
): Promise<ElicitResult> {
  // On its own line, below the spinner (taken down until answered); what the server wrote is made safe.
  const done = lines.beginQuestion();
  try {
    process.stderr.write(`? ${safeText(params.message)}\n`);
    if (answer) return { action: 'accept', content: answer as ElicitResult['content'] & object };
    const schema = 'requestedSchema' in params ? params.requestedSchema : undefined;
    const fields = Object.entries((schema?.properties ?? {}) as Record<string, Field>);
    const content: Record<string, string | number | boolean> = {};
    for (const [name, field] of fields) {
      process.stderr.write(`  ${safeLine(field.title ?? name)}${field.description ? ` (${safeLine(field.description)})` : ''}: `);
      const line = await lines.next(signal);
      // A terminal echoed what was typed (and the newline); piped lines are echoed here, so the next line starts below.
      if (!lines.echoes) process.stderr.write(`${line === null ? '' : safeLine(line)}\n`);
      if (line === null || (line === '' && Object.keys(content).length === 0)) return { action: 'decline' };
      content[name] = convert(line, field);
    }
    return { action: 'accept', content };
  } finally {
    done();
  }
}

/**
 * A canned model: every sampling request gets `reply`.
 *
 * @example
 * ```ts
 * cannedSample('A short summary.'); // { role: 'assistant', model: 'mcp-tasks-canned', content: { type: 'text', text: … } }
 * ```
 */
export function cannedSample(reply: string): CreateMessageResult {
  return { role: 'assistant', model: 'mcp-tasks-canned', content: { type: 'text', text: reply } };
}
