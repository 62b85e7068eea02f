/** Scripted AI SDK models (`MockLanguageModelV4` from `ai/test`): the steps a test plays. */
import { MockLanguageModelV4 } from 'ai/test';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
type Generated = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;

let seq = 0;

/** A step in which the model calls one tool. */
export function toolCall(toolName: string, input: Record<string, unknown>): { result: Generated } {
  return {
    result: {
      content: [{ type: 'tool-call', toolCallId: `call-${++seq}`, toolName, input: JSON.stringify(input) }],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage,
      warnings: [],
    },
  };
}

/** A step in which the model answers with text. */
export function scriptedResult(text: string): Generated {
  return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
}

/** A model that plays these steps in order (generate and stream alike). */
export function scriptedModel(steps: readonly ({ result: Generated } | { text: string })[]): MockLanguageModelV4 {
  const played = steps.map((s) => ('text' in s ? scriptedResult(s.text) : s.result));
  let at = 0;
  const next = (): Generated => played[Math.min(at++, played.length - 1)]!;
  return new MockLanguageModelV4({
    doGenerate: async () => next(),
    doStream: async () => {
      const step = next();
      type Part = Parameters<ReadableStreamDefaultController<Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never>['enqueue']>[0];
      const chunks: Part[] = [];
      for (const part of step.content) {
        if (part.type === 'text') chunks.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: part.text }, { type: 'text-end', id: 't' });
        else chunks.push(part as Part);
      }
      chunks.push({ type: 'finish', finishReason: step.finishReason, usage: step.usage });
      return { stream: new ReadableStream({ start: (c) => (chunks.forEach((ch) => c.enqueue(ch)), c.close()) }) };
    },
  });
}

/**
 * A model that starts `long_job {seconds: 1}` in background mode, reads the task id from the
 * tool's answer, polls `task_status` until it completed, collects it, and says `collected`.
 */
export function backgroundModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const outputs = JSON.stringify(prompt);
      const taskId = /\\"taskId\\":\\"([0-9a-f-]{36})\\"/.exec(outputs)?.[1];
      if (taskId === undefined) return toolCall('long_job', { seconds: 1 }).result;
      if (/long_job done in 1 s/.test(outputs)) return scriptedResult('collected');
      if (/\\"status\\":\\"completed\\"/.test(outputs)) return toolCall('task_result', { taskId }).result;
      await new Promise((resolve) => setTimeout(resolve, 200));
      return toolCall('task_status', { taskId }).result;
    },
  });
}
