/**
 * LangGraph's human in the loop for what a task asks: with `humanInTheLoop: 'interrupt'`, a
 * question becomes an `interrupt()` of the graph, and `Command({ resume })` answers it. LangGraph
 * resumes by running the tool node again; the tool then picks up the task it already started (by
 * its tool call id) instead of starting another, replays the interrupts already answered in order
 * (LangGraph matches resume values by position) and hands the new answer to the waiting task.
 *
 * @module
 */
import type { RequesterInputRequest } from '../../../machines/index.js';
import type { CallToolResult } from '../../wire/mcp-shapes.js';
import type { TaskUpdate } from '../../wire/task-call.types.js';
import { followTool, type AgentTaskClient, type McpTaskToolsOptions } from '../agent-tools.js';

/** LangGraph's `interrupt`: throws the first time, returns the resume value when resumed. */
export type Interrupt = (value: unknown) => unknown;

interface Question {
  readonly request: RequesterInputRequest;
  answered: boolean;
  readonly answer: (response: Record<string, unknown>) => void;
}

/** One tool call's task, kept across the graph's interrupt and resume. */
interface Parked {
  readonly run: AsyncGenerator<TaskUpdate, CallToolResult>;
  /** The step asked of `run` and not yet taken (kept across a question and across runs). */
  pending: Promise<IteratorResult<TaskUpdate, CallToolResult>> | undefined;
  readonly questions: Question[];
  /** Wakes a tool run waiting for a question to be asked. */
  asked: (() => void) | null;
}

/**
 * The tool calls of one `mcpTaskTools` whose tasks wait for a graph's resume.
 *
 * @example
 * ```ts
 * const parked = new ParkedCalls();
 * for await (const update of parked.follow(client, 'ask_name', {}, toolCallId, interrupt, options, signal)) console.log(update);
 * ```
 */
export class ParkedCalls {
  readonly #byToolCall = new Map<string, Parked>();

  /**
   * Follows the call of `toolCallId` (starting its task on the first run), interrupting the graph
   * at each question; yields its updates and returns its result.
   */
  async *follow(
    client: AgentTaskClient,
    toolName: string,
    args: Record<string, unknown>,
    toolCallId: string,
    interrupt: Interrupt,
    options: McpTaskToolsOptions,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<TaskUpdate, CallToolResult> {
    let parked = this.#byToolCall.get(toolCallId);
    if (parked === undefined) {
      const made: Parked = { run: undefined as never, pending: undefined, questions: [], asked: null };
      const onInputRequest = (request: RequesterInputRequest): Promise<Record<string, unknown>> =>
        new Promise((answer) => {
          made.questions.push({ request, answered: false, answer });
          made.asked?.();
        });
      Object.assign(made, { run: followTool(client, toolName, args, { signal, options: { ...options, onInputRequest } }) });
      parked = made;
      this.#byToolCall.set(toolCallId, parked);
    }
    // Interrupts made in this run, one per question in order: LangGraph hands back the resume
    // values of a run by position, so the questions answered in earlier runs are replayed first.
    let called = 0;
    try {
      for (;;) {
        while (called < parked.questions.length) {
          const question = parked.questions[called++]!;
          const value = interrupt({ toolName, method: question.request.method, params: question.request.params ?? {} });
          if (!question.answered) {
            question.answered = true;
            question.answer(value as Record<string, unknown>);
          }
        }
        parked.pending ??= parked.run.next();
        const step = await Promise.race([parked.pending, this.#nextQuestion(parked)]);
        if (step === 'asked') continue;
        parked.pending = undefined;
        if (step.done) {
          this.#byToolCall.delete(toolCallId);
          return step.value;
        }
        yield step.value;
      }
    } catch (error) {
      // An interrupt leaves the task waiting for the resume; anything else ends the call.
      if (!isGraphInterrupt(error)) this.#byToolCall.delete(toolCallId);
      throw error;
    }
  }

  // Resolves once a question is asked that has no answer yet.
  #nextQuestion(parked: Parked): Promise<'asked'> {
    return new Promise((resolve) => {
      if (parked.questions.some((q) => !q.answered)) return resolve('asked');
      parked.asked = () => {
        parked.asked = null;
        resolve('asked');
      };
    });
  }
}

/** LangGraph's interrupt error, told apart without importing LangGraph at load time. */
function isGraphInterrupt(error: unknown): boolean {
  return typeof error === 'object' && error !== null && ['GraphInterrupt', 'NodeInterrupt'].includes((error as { name?: unknown }).name as string);
}
