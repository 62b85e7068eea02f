/**
 * Listeners of runtime events, either for every task or for one task. One task's listeners are
 * found by key, so an event costs O(its own listeners), not O(every connection watching some
 * task): each connection watches only its own tasks.
 *
 * @module
 */

/**
 * A listener set with optional per-key listeners. A listener that throws is skipped: its failure
 * is its own and must not stop the task or the other listeners.
 *
 * @example
 * ```ts
 * const changes = new Listeners<string>();
 * const off = changes.add((v) => console.log(v), 'task-key');
 * changes.emit('moved', 'task-key');
 * off();
 * ```
 */
export class Listeners<T> {
  readonly #all = new Set<(value: T) => void>();
  readonly #byKey = new Map<string, Set<(value: T) => void>>();

  /** True when nobody listens to `key` (nor to everything). */
  isEmpty(key: string): boolean {
    return this.#all.size === 0 && !this.#byKey.has(key);
  }

  /** Adds a listener for every event, or only for events of `key`. Returns its removal. */
  add(listener: (value: T) => void, key?: string): () => void {
    if (key === undefined) {
      this.#all.add(listener);
      return () => this.#all.delete(listener);
    }
    let set = this.#byKey.get(key);
    if (!set) this.#byKey.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#byKey.get(key) === set) this.#byKey.delete(key);
    };
  }

  /** Calls the listeners of everything and of `key`. */
  emit(value: T, key: string): void {
    for (const listener of this.#all) call(listener, value);
    const keyed = this.#byKey.get(key);
    if (keyed) for (const listener of keyed) call(listener, value);
  }

  /** Forgets every listener. */
  clear(): void {
    this.#all.clear();
    this.#byKey.clear();
  }
}

function call<T>(listener: (value: T) => void, value: T): void {
  try {
    listener(value);
  } catch {
    /* a listener's failure is its own */
  }
}
