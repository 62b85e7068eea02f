/**
 * `defineTaskTool` and friends infer what users write under `strict`: `args` from the zod schema,
 * `ctx` from the definition, `taskSupport` literal, and the result is accepted by both SDK adapters.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineTaskPrompt, defineTaskResource, defineTaskTool, type RequestWorkContext, type TaskServerDefinitions } from '../../index.js';

describe('defineTaskTool', () => {
  it('infers args from the schema, ctx from the definition, and keeps taskSupport literal', async () => {
    const tool = defineTaskTool({
      name: 'sleep',
      inputSchema: z.object({ ms: z.number(), label: z.string().optional() }),
      taskSupport: 'required',
      run: async (args, ctx) => {
        expectTypeOf(args).toEqualTypeOf<{ ms: number; label?: string | undefined }>();
        expectTypeOf(ctx).toEqualTypeOf<RequestWorkContext>();
        return { content: [{ type: 'text', text: `slept ${args.ms}` }] };
      },
    });
    expectTypeOf(tool.taskSupport).toEqualTypeOf<'required' | undefined>();
    // @ts-expect-error a typo in taskSupport is a compile error, not a string
    defineTaskTool({ name: 'x', inputSchema: z.object({}), taskSupport: 'requird', run: async () => ({ content: [] }) });
    // @ts-expect-error args are typed: `ms` is a number
    defineTaskTool({ name: 'y', inputSchema: z.object({ ms: z.number() }), run: async ({ ms }) => ({ content: [{ type: 'text', text: ms.toUpperCase() }] }) });
    const strict = defineTaskTool({ name: 'strict', inputSchema: z.object({ a: z.string() }).strict(), run: async ({ a }) => ({ content: [{ type: 'text', text: a }] }) });
    const definitions: TaskServerDefinitions = { tools: [tool, strict] };
    expect(definitions.tools).toHaveLength(2);
    const signal = new AbortController().signal;
    const ctx: RequestWorkContext = { taskId: null, signal, setStatusMessage: () => undefined, progress: () => false, elicit: () => Promise.reject(new Error('no')), sample: () => Promise.reject(new Error('no')) };
    await expect(tool.run({ ms: 5 }, ctx)).resolves.toEqual({ content: [{ type: 'text', text: 'slept 5' }] });
  });

  it('types prompts and resources the same way', () => {
    const prompt = defineTaskPrompt({ name: 'greeting', taskSupport: 'forbidden', run: async (args) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hi ${args['name'] ?? ''}` } }] }) });
    const resource = defineTaskResource({ uri: 'demo://r', name: 'r', run: async (uri) => ({ contents: [{ uri, text: 'ok' }] }) });
    expectTypeOf(prompt.taskSupport).toEqualTypeOf<'forbidden' | undefined>();
    expectTypeOf<Parameters<typeof resource.run>[0]>().toEqualTypeOf<string>();
    const definitions: TaskServerDefinitions = { prompts: [prompt], resources: [resource] };
    expect(definitions.prompts?.[0]?.name).toBe('greeting');
  });
});
