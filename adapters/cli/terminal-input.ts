/**
 * How the command line answers what a server asks (elicitation, sampling) when nobody can type:
 * with no terminal, no `--answer` and stdin at its end, a question cannot be answered, and `call`
 * exits 3 leaving the task waiting (fetch it later with `tasks result` on a terminal) rather than
 * decline on the user's behalf.
 *
 * @module
 */
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import type { InputRequestHandler } from '../wire/task-client.types.js';
import { answerElicitation, cannedSample, type LineReader } from './terminal-answers.js';

/**
 * The first question nobody can answer, reported once.
 *
 * @example
 * ```ts
 * const missing = new InputMissing(process.stdin.isTTY !== true);
 * const what = await missing.reported; // 'elicitation/create: What is your name?'
 * ```
 */
export class InputMissing {
  /** Resolves with what was asked, once a question could not be answered. */
  readonly reported: Promise<string>;
  #resolve!: (what: string) => void;

  /** @param applies - whether an unanswerable question ends the command (no terminal, no `--answer`) */
  constructor(readonly applies: boolean) {
    this.reported = new Promise((resolve) => (this.#resolve = resolve));
  }

  /** Reports a question nobody can answer. */
  report(what: string): void {
    this.#resolve(what);
  }
}

/**
 * Answers an elicitation on the terminal (or with `answer`); when nothing can answer it (see
 * {@link InputMissing}) reports it and never settles (the process ends, the question stays pending
 * on the server for the requester's next channel).
 *
 * @example
 * ```ts
 * const result = await elicitOrReport(params, lines, undefined, missing);
 * ```
 */
export async function elicitOrReport(params: ElicitRequest['params'], lines: LineReader, answer: Record<string, unknown> | undefined, missing: InputMissing, signal?: AbortSignal): Promise<Awaited<ReturnType<typeof answerElicitation>>> {
  const unanswerable = (): boolean => answer === undefined && missing.applies && lines.ended;
  if (!unanswerable()) {
    const answered = await answerElicitation(params, lines, answer, signal);
    if (!(answered.action === 'decline' && unanswerable())) return answered;
  }
  missing.report(`elicitation/create: ${params.message}`);
  return new Promise(() => undefined);
}

/**
 * The task client's `onInputRequest` for the 2026-07-28 wire: elicitation on the terminal (or
 * `answer`), sampling with the canned reply.
 *
 * @example
 * ```ts
 * const onInputRequest = terminalInputHandler({ lines, answer: undefined, sampleReply: 'Short.', inputMissing });
 * ```
 */
export function terminalInputHandler(options: { lines: LineReader; answer: Record<string, unknown> | undefined; sampleReply: string; inputMissing: InputMissing }): InputRequestHandler {
  return async (request, context) => {
    if (request.method === 'sampling/createMessage') return cannedSample(options.sampleReply);
    if (request.method !== 'elicitation/create') throw new Error(`mcp-tasks cannot answer ${request.method}`);
    return await elicitOrReport(request.params as ElicitRequest['params'], options.lines, options.answer, options.inputMissing, context.signal);
  };
}
