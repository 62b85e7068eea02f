/**
 * Which states of a machine a snapshot is in, as ids: what a handler run reports and what a
 * diagram lights up. Pure (xstate types only), so a worker running handlers loads no drawing code.
 *
 * @module
 */
import type { StateValue } from 'xstate';

/**
 * The ids of the states a snapshot is in, parents included, for `highlight`: the inspector turns a
 * task's `snapshot.value` into the boxes to light up, with nothing but the machine's id.
 *
 * @param machineId - the machine's id (`graph.id`)
 * @param value - a snapshot's `value`
 * @example
 * ```ts
 * activeStateIds('requester', { polling: 'waiting' }); // ['requester.polling', 'requester.polling.waiting']
 * toSvg(graph, { highlight: activeStateIds(graph.id, snapshot.value) });
 * ```
 */
export function activeStateIds(machineId: string, value: StateValue): string[] {
  if (typeof value === 'string') return [`${machineId}.${value}`];
  // A machine without states has the value `{}` and is drawn as one box with the machine's id.
  if (Object.keys(value).length === 0) return [machineId];
  return Object.entries(value).flatMap(([key, child]) => {
    const id = `${machineId}.${key}`;
    return child === undefined ? [id] : [id, ...activeStateIds(id, child)];
  });
}
