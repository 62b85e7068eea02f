import type { TaskClient } from '../../../adapters/mcp-client/index.js';

/** Polls `read` until it gives a value (bounded): the agent adapters' tests wait on the server with it. */
export async function until<T>(read: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The id of a `long_job` task once it is working on its steps (what an abort test then stops). */
export function workingLongJob(tasks: Pick<TaskClient, 'listTasks'>): Promise<string> {
  return until(async () => (await tasks.listTasks()).find((t) => t.status === 'working' && t.statusMessage?.startsWith('step'))?.taskId);
}

/** Resolves once the server shows `taskId` cancelled (bounded). */
export async function serverShowsCancelled(tasks: Pick<TaskClient, 'getTask'>, taskId: string): Promise<boolean> {
  return until(async () => ((await tasks.getTask(taskId)).status === 'cancelled' ? true : undefined));
}
