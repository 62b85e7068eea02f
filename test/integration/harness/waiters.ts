interface Waiter<T> {
  match: (value: T) => boolean;
  /** Lets {@link Waiters.rejectAll} pick out one group (e.g. one request id). */
  key: unknown;
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

/** Pending waits for a value matching a predicate, each with its own timeout (the wire's waits). */
export class Waiters<T> {
  private list: Waiter<T>[] = [];

  wait(match: (value: T) => boolean, timeoutMs: number, timeoutError: () => Error, key?: unknown): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.list = this.list.filter((w) => w !== waiter);
        reject(timeoutError());
      }, timeoutMs);
      const waiter: Waiter<T> = {
        match,
        key,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.list.push(waiter);
    });
  }

  /** Resolves (and removes) every waiter that `value` matches. */
  offer(value: T): void {
    const matching = this.list.filter((w) => w.match(value));
    this.list = this.list.filter((w) => !matching.includes(w));
    for (const w of matching) w.resolve(value);
  }

  /** Rejects (and removes) every waiter, or only those registered under `key`. */
  rejectAll(error: Error, key?: unknown): void {
    const hit = this.list.filter((w) => key === undefined || w.key === key);
    this.list = this.list.filter((w) => !hit.includes(w));
    for (const w of hit) w.reject(error);
  }
}
