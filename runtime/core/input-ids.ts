/**
 * The ids of a run's input requests, the same on every run of a task that asks the same things:
 * so a re-run or resumed run finds the answers given to the runs before it.
 *
 * @module
 */

/** An input request an earlier run of the task made (see `RunOptions.asked`). */
export interface AskedBefore {
  readonly inputId: string;
  readonly method: string;
  readonly params: unknown;
}

/**
 * Numbers a run's input requests. A first run numbers them in the order the work asks. A later
 * run (re-run or resumed) asks again what earlier runs asked, perhaps not from the first: it takes
 * the id of the first earlier request with the same method and params it has not matched yet (so
 * its answer is replayed), and a new request an id after every earlier one.
 *
 * @example
 * ```ts
 * const ids = new InputIds([{ inputId: 'input-1', method: 'elicitation/create', params: { q: 1 } }]);
 * ids.next('elicitation/create', { q: 1 }); // 'input-1' (its answer is replayed)
 * ids.next('elicitation/create', { q: 2 }); // 'input-2'
 * ```
 */
export class InputIds {
  #count = 0;
  /** Earlier runs' requests not matched by one of this run yet, their params as JSON. */
  #unmatched: { readonly inputId: string; readonly method: string; readonly params: string }[] | null = null;

  constructor(private readonly asked: readonly AskedBefore[] = []) {}

  /** The id of the work's next request, of `method` with `params`. */
  next(method: string, params: unknown): string {
    const asked = this.asked;
    if (asked.length === 0) return `input-${++this.#count}`;
    this.#unmatched ??= asked.map((a) => ({ inputId: a.inputId, method: a.method, params: JSON.stringify(a.params ?? null) }));
    const same = JSON.stringify(params ?? null);
    const at = this.#unmatched.findIndex((a) => a.method === method && a.params === same);
    if (at >= 0) return this.#unmatched.splice(at, 1)[0]!.inputId;
    const numbers = asked.map((a) => Number(/^input-(\d+)$/.exec(a.inputId)?.[1] ?? 0));
    this.#count = Math.max(this.#count, ...numbers);
    return `input-${++this.#count}`;
  }
}
