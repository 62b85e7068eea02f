/**
 * Watching tasks: the inspector web page beside an embedded runtime, and a handler written as an
 * XState machine, whose own diagram the page draws with its current state. Open the printed URL
 * in a browser to see it; here the example reads the page's JSON API instead.
 */
import { emit, setup } from 'xstate';
import { attachInspector, handlerStatus, machineHandler, type HandlerStatusEvent, type TaskDetail } from 'mcp-task-actors/adapters/inspector';
import { createTaskRuntime, type ObservedTask } from 'mcp-task-actors';

/** The work, as a machine: `fetching` then `parsing`, each announced as the status message. */
const importMachine = setup({
  types: { input: {} as { rows: number }, context: {} as { rows: number }, output: {} as { imported: number }, emitted: {} as HandlerStatusEvent },
}).createMachine({
  id: 'import',
  context: ({ input }) => ({ rows: input.rows }),
  initial: 'fetching',
  states: {
    fetching: { entry: emit(() => handlerStatus('fetching')), after: { 200: 'parsing' } },
    parsing: { entry: emit(() => handlerStatus('parsing')), after: { 200: 'done' } },
    done: { type: 'final' },
  },
  output: ({ context }) => ({ imported: context.rows }),
});

/** Runs the example and returns the states the inspector showed for the handler. */
export async function main(): Promise<{ url: string; seen: string[]; status: string }> {
  const runtime = createTaskRuntime();
  // Attach before creating tasks: the memory backend records timelines from the first observer on.
  const inspector = await attachInspector(runtime, { port: 0 });
  console.error(`inspector at ${inspector.url}`);
  runtime.registerHandler('import', machineHandler(importMachine, { input: (params) => params as { rows: number } }));

  const owner = { session: 'example', principal: null };
  await runtime.create({ taskId: 'import-1', owner, dialect: '2025-11-25', method: 'tools/call', label: 'import', handler: 'import', params: { rows: 42 } });

  const { status } = await runtime.waitForTerminal('import-1', owner);
  // The page keeps the handler's path in the task's timeline, every state it entered in order, so
  // it is all there however late one looks (a poll of the live state may miss a short one).
  const api = `http://127.0.0.1:${inspector.port}/api`;
  const { tasks } = (await (await fetch(`${api}/tasks`)).json()) as { tasks: ObservedTask[] };
  const key = tasks.find((t) => t.taskId === 'import-1')!.key;
  const detail = (await (await fetch(`${api}/tasks/${key}`)).json()) as TaskDetail;
  const seen: string[] = [];
  for (const entry of detail.timeline) {
    const state = entry.handler?.states.join(',');
    if (state !== undefined && seen.at(-1) !== state) seen.push(state);
  }
  await inspector.close();
  await runtime.dispose();
  return { url: inspector.url, seen, status };
}
