/**
 * Readable text for XState's internal event names and for guards, shared by every renderer so the
 * Mermaid text and the SVG say the same thing.
 *
 * @module
 */

/** XState names the events it raises itself; these prefixes say which kind each one is. */
const ACTOR_EVENTS: readonly (readonly [prefix: string, word: string])[] = [
  ['xstate.done.actor.', 'done'],
  ['xstate.error.actor.', 'error'],
  ['xstate.snapshot.', 'snapshot'],
];

/**
 * The text shown for an event descriptor.
 *
 * @param event - XState's descriptor (`''` for `always`)
 * @param actorNames - invoke id → name to show (generated ids are unreadable; their `src` is not)
 * @param delay - the delay of an `after` transition
 * @example
 * ```ts
 * eventLabel('xstate.done.actor.handler'); // 'done: handler'
 * eventLabel('xstate.after.1000.m.a', new Map(), 1000); // 'after 1000ms'
 * eventLabel(''); // 'always'
 * ```
 */
export function eventLabel(event: string, actorNames: ReadonlyMap<string, string> = new Map(), delay?: unknown): string {
  if (event === '') return 'always';
  if (event === 'xstate.route') return 'route';
  for (const [prefix, word] of ACTOR_EVENTS) {
    if (event.startsWith(prefix)) {
      const id = event.slice(prefix.length);
      return `${word}: ${actorNames.get(id) ?? id}`;
    }
  }
  if (event.startsWith('xstate.done.state.')) return 'done';
  if (event.startsWith('xstate.after.')) {
    if (typeof delay === 'number') return `after ${delay}ms`;
    if (typeof delay === 'string') return `after ${delay}`;
    // A delay computed from context has no fixed value to show.
    return 'after (dynamic)';
  }
  return event;
}

interface GuardFunction {
  readonly name: string;
  readonly guards?: readonly unknown[];
  readonly stateValue?: unknown;
}

const COMBINATORS: Readonly<Record<string, string>> = { and: ' && ', or: ' || ' };

// True when the guard, or any part of a combination, is a name someone chose.
function hasName(guard: unknown): boolean {
  if (typeof guard === 'string') return true;
  if (typeof guard === 'object' && guard !== null) return true;
  if (typeof guard === 'function') return ((guard as GuardFunction).guards ?? []).some(hasName);
  return false;
}

function describe(guard: unknown, nested: boolean): string {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null) {
    const type = (guard as { type?: unknown }).type;
    return typeof type === 'string' ? type : 'guarded';
  }
  if (typeof guard !== 'function') return 'guarded';
  // xstate's and()/or()/not()/stateIn() return functions carrying their parts; they are
  // recognised by those fields (and their names) because xstate exports no way to inspect them.
  const fn = guard as GuardFunction;
  if (fn.guards && fn.name === 'not') return `!${describe(fn.guards[0], true)}`;
  const joiner = COMBINATORS[fn.name];
  if (fn.guards && joiner) {
    const text = fn.guards.map((g) => describe(g, true)).join(joiner);
    return nested ? `(${text})` : text;
  }
  if ('stateValue' in fn) return `in(${typeof fn.stateValue === 'string' ? fn.stateValue : JSON.stringify(fn.stateValue)})`;
  return 'guarded';
}

/**
 * The text shown for a guard: its name (`isNewInput`, `{ type }`), combinations spelled out
 * (`a && !b`), `in(state)` for `stateIn`, and `guarded` for inline code. A combination made only of
 * unnamed parts is shown as `guarded` too: spelling out `(in(a) || in(b)) && guarded` would crowd
 * the picture and tell a reader no more than the machine's source does.
 *
 * @param guard - a transition's `guard` (string, `{ type, params }` or function); `undefined` when none
 * @returns the text, or `undefined` for an unguarded transition
 * @example
 * ```ts
 * import { and, not } from 'xstate';
 * guardLabel('isNewInput'); // 'isNewInput'
 * guardLabel(and(['createdIsValid', not('cancelRequested')])); // 'createdIsValid && !cancelRequested'
 * guardLabel(() => true); // 'guarded'
 * ```
 */
export function guardLabel(guard: unknown): string | undefined {
  if (guard === undefined || guard === null) return undefined;
  if (typeof guard === 'function' && (guard as GuardFunction).guards && !hasName(guard)) return 'guarded';
  return describe(guard, false);
}
