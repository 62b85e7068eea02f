// @vitest-environment jsdom
// A DOM for this file only: Mermaid's real parser loads DOMPurify, which needs one, and the SVG is
// read back with the DOM's own XML parser.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMachine, fromPromise, not, setup, type AnyStateMachine } from 'xstate';
import { activeStateIds, machineGraph, toMermaid, toSvg } from '../../../adapters/inspector/diagram/index.js';
import { requesterMachine, taskMachine } from '../../../machines/index.js';
import { countBy, definitionOf, labelMatches, parseMermaid, parseSvg, type SvgDocument } from './diagram.reference.js';

/** Nesting, parallel regions, history, `always`, `after`, targetless and guarded transitions, invokes. */
const adHoc = setup({
  guards: { ok: () => true },
  actors: { job: fromPromise(async () => 1) },
  delays: { slow: 500 },
}).createMachine({
  id: 'm',
  initial: 'idle',
  invoke: { src: 'job', onDone: '.done', onError: { target: '.idle', guard: 'ok' } },
  on: { RESET: '.idle' },
  states: {
    idle: {
      on: { GO: { target: 'busy', guard: 'ok' }, PING: { actions: [] }, 'odd;#<event>': 'busy' },
      after: { 1000: 'busy' },
    },
    busy: {
      initial: 'a',
      invoke: { src: fromPromise(async () => 2), onDone: 'par', onError: 'idle' },
      onDone: 'idle',
      on: { STOP: 'idle', TICK: { actions: [] } },
      states: {
        a: { always: { target: 'b', guard: not('ok') }, after: { slow: 'b' } },
        b: { type: 'final' },
        hist: { type: 'history', history: 'deep' },
      },
    },
    par: {
      type: 'parallel',
      states: {
        left: { initial: 'x', states: { x: { on: { FLIP: 'z' } }, z: {} } },
        right: { initial: 'y', states: { y: { on: { AGAIN: { target: 'y', reenter: true } } } } },
      },
    },
    done: { type: 'final' },
  },
});

/**
 * A random machine from a seed: up to three levels of compound and parallel states, final states,
 * and random events, targetless, eventless (guarded), delayed and invoke-done transitions, on any
 * state including the root. Built from a seed so that a failing case is reproduced by its seed.
 */
function randomMachine(seed: number): AnyStateMachine {
  let state = seed >>> 0;
  const random = (): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
  const paths: string[][] = [];
  const build = (depth: number, path: string[]): Record<string, any> => {
    const states: Record<string, any> = {};
    for (let i = 0, n = 1 + Math.floor(random() * 4); i < n; i += 1) {
      const key = `s${i}`;
      paths.push([...path, key]);
      const r = random();
      if (depth < 3 && r < 0.3) states[key] = { initial: 's0', states: build(depth + 1, [...path, key]) };
      else if (depth < 3 && r < 0.4) states[key] = { type: 'parallel', states: build(depth + 1, [...path, key]) };
      else states[key] = r < 0.5 ? { type: 'final' } : {};
    }
    return states;
  };
  const config: Record<string, any> = { id: 'r', initial: 's0', states: build(0, []) };
  const target = (): string => `#r.${paths[Math.floor(random() * paths.length)]!.join('.')}`;
  const nodes = [config, ...paths.map((p) => p.reduce((node, key) => node.states[key], config))];
  for (const node of nodes.filter((n) => n.type !== 'final')) {
    node.on = {};
    for (let j = 0, m = Math.floor(random() * 4); j < m; j += 1) node.on[`E${j}`] = random() < 0.2 ? { actions: [] } : target();
    if (random() < 0.2) node.always = { target: target(), guard: () => false };
    if (random() < 0.1) node.after = { 100: target() };
    if (random() < 0.1) node.invoke = { id: `w${paths.length}`, src: fromPromise(async () => 0), onDone: target() };
  }
  return createMachine(config as any);
}

/** Every state and transition of the definition is in the Mermaid text, as Mermaid parses it. */
async function expectMermaidToShow(machine: AnyStateMachine, text: string): Promise<void> {
  const { states, transitions } = definitionOf(machine);
  const parsed = await parseMermaid(text, machine.id);
  expect(parsed.states.map((s) => [s.path, s.parent]).sort()).toEqual(states.map((s) => [s.id, s.parent]).sort());
  const unmatched = [...parsed.edges];
  for (const t of transitions) {
    const i = unmatched.findIndex((e) => e.source === t.source && e.target === t.target && labelMatches(e.label, t));
    expect(i, `${t.source} --> ${t.target} : ${t.readable}`).toBeGreaterThanOrEqual(0);
    unmatched.splice(i, 1);
  }
  expect(unmatched).toEqual([]);
  for (const s of states) {
    if (s.initial !== undefined) expect(parsed.starts.get(s.id)).toBe(s.initial);
    if (s.type === 'final') expect(parsed.ends.has(s.id)).toBe(true);
  }
}

/** Every state is a `g.state[data-state]` and every transition a `g.transition` with its data. */
function expectSvgToShow(machine: AnyStateMachine, svg: string): SvgDocument {
  const { states, transitions } = definitionOf(machine);
  const doc = parseSvg(svg);
  const drawn = [...doc.querySelectorAll('g.state')];
  expect(drawn.map((g) => g.getAttribute('data-state')).sort()).toEqual(states.map((s) => s.id).sort());
  for (const s of states) expect(doc.querySelector(`g.state.${s.type}[data-state="${s.id}"]`)).not.toBeNull();
  const key = (t: { source: string | null; target: string | null; event: string | null }): string => `${t.source} → ${t.target} : ${t.event}`;
  const shown = [...doc.querySelectorAll('g.transition')].map((g) => ({
    source: g.getAttribute('data-source'),
    target: g.getAttribute('data-target'),
    event: g.getAttribute('data-event'),
  }));
  expect(countBy(shown, key)).toEqual(countBy(transitions, key));
  return doc;
}

describe('machine diagrams', () => {
  it('should show every state and transition of the task machine in parseable Mermaid', async () => {
    const text = toMermaid(machineGraph(taskMachine));
    await expectMermaidToShow(taskMachine, text);
    // The machine invokes nothing: the work's outcome is the task.complete / task.fail event of
    // each live state, and no invoked actor's done or error edge is drawn from anywhere.
    for (const live of ['submitted', 'working', 'input_required']) {
      expect(text).toContain(`${live} --> completed : task.complete`);
      expect(text).toContain(`${live} --> failed : task.fail`);
      expect(text).not.toContain(`${live} --> completed : done: handler`);
      expect(text).not.toContain(`${live} --> failed : error: handler`);
    }
    expect(text).not.toMatch(/: (done|error): /);
    const edges = machineGraph(taskMachine).edges;
    expect(edges.filter((e) => /^xstate\.(done|error)\.actor\./.test(e.event))).toEqual([]);
    expect(edges.filter((e) => e.declaredOn === 'task')).toEqual([]);
    expect(text).not.toMatch(/^\s*(completed|failed|cancelled|unknown) --> (?!\[\*\])/m);
  });

  it('should show every state and transition of the task machine in the SVG', () => {
    const doc = expectSvgToShow(taskMachine, toSvg(machineGraph(taskMachine)));
    expect(doc.documentElement.getAttribute('data-machine')).toBe('task');
    // Targetless transitions are written inside their state's box.
    const message = doc.querySelector('g.state[data-state="task.working"] g.transition.internal[data-event="task.message"]');
    expect(message?.textContent).toBe('task.message');
  });

  it('should show the nested requester machine in Mermaid and SVG', async () => {
    const graph = machineGraph(requesterMachine);
    await expectMermaidToShow(requesterMachine, toMermaid(graph));
    expectSvgToShow(requesterMachine, toSvg(graph));
    expectSvgToShow(requesterMachine, toSvg(graph, { direction: 'LR' }));
  });

  it('should draw any machine: nesting, parallel, history, always, after, targetless, guards, invokes', async () => {
    const graph = machineGraph(adHoc);
    const labels = (source: string, target: string, event: string): string[] =>
      graph.edges
        .filter((e) => e.source === source && e.target === target && (event === '' ? e.event === '' : e.event.startsWith(event)))
        .map((e) => e.label);
    const label = (source: string, target: string, event: string): string | undefined => labels(source, target, event)[0];
    expect(label('m.idle', 'm.busy', 'xstate.after.')).toBe('after 1000ms');
    expect(label('m.busy.a', 'm.busy.b', 'xstate.after.')).toBe('after slow');
    expect(label('m.busy.a', 'm.busy.b', '')).toBe('always [!ok]');
    expect(label('m.idle', 'm.busy', 'GO')).toBe('GO [ok]');
    expect(label('m.busy', 'm.idle', 'xstate.done.state.')).toBe('done');
    expect(label('m.busy', 'm.par', 'xstate.done.actor.')).toBe('done: invoke[0]');
    for (const live of ['m.idle', 'm.busy', 'm.par']) {
      expect(label(live, 'm.done', 'xstate.done.actor.')).toBe('done: job');
      expect(labels(live, 'm.idle', 'xstate.error.actor.')).toContain('error: job [ok]');
      expect(label(live, 'm.idle', 'RESET')).toBe('RESET');
    }
    expect(graph.edges.filter((e) => e.source === 'm.done')).toEqual([]);
    expect(graph.edges.find((e) => e.event === 'PING')).toMatchObject({ source: 'm.idle', target: 'm.idle', internal: true });
    expect(graph.edges.find((e) => e.event === 'AGAIN')).toMatchObject({ source: 'm.par.right.y', target: 'm.par.right.y', internal: false });
    expect(graph.nodes.find((n) => n.id === 'm.busy.hist')).toMatchObject({ type: 'history', label: 'hist (H*)', parent: 'm.busy' });
    expect(graph.nodes.find((n) => n.id === 'm.par')).toMatchObject({ type: 'parallel' });

    const text = toMermaid(graph);
    await expectMermaidToShow(adHoc, text);
    expect(text).toMatch(/^\s*--$/m);
    const odd = (await parseMermaid(text, 'm')).edges.find((e) => e.label.startsWith('odd'));
    expect(odd?.label).toBe('odd;#<event>');

    const doc = expectSvgToShow(adHoc, toSvg(graph));
    expect(doc.querySelector('g.state[data-state="m.par.right.y"] g.transition.self')?.textContent).toBe('↻ AGAIN');
  });

  it('should draw every state and transition of random machines', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), async (seed) => {
        const machine = randomMachine(seed);
        const graph = machineGraph(machine);
        await expectMermaidToShow(machine, toMermaid(graph));
        expectSvgToShow(machine, toSvg(graph));
      }),
      { numRuns: 12, seed: 20_261_203 },
    );
  });

  it('should draw a machine without states as one box', async () => {
    const solo = createMachine({ id: 'solo', on: { PING: {} } });
    const graph = machineGraph(solo);
    expect(graph.nodes).toEqual([{ id: 'solo', key: 'solo', label: 'solo', type: 'atomic' }]);
    const parsed = await parseMermaid(toMermaid(graph), '');
    expect(parsed.edges).toEqual([{ source: '.solo', target: '.solo', label: 'PING' }]);
    expect(parseSvg(toSvg(graph)).querySelector('g.state[data-state="solo"] g.transition.internal')).not.toBeNull();
  });

  it('should draw a parallel machine, its root transitions from each region', async () => {
    const both = createMachine({
      id: 'both',
      type: 'parallel',
      on: { RESET: { target: ['.a.a1', '.b.b1'] } },
      states: {
        a: { initial: 'a1', states: { a1: { on: { NEXT: 'a2' } }, a2: { type: 'final' } } },
        b: { initial: 'b1', states: { b1: { on: { NEXT: 'b2' } }, b2: {} } },
      },
    });
    const graph = machineGraph(both);
    expect(graph).toMatchObject({ type: 'parallel' });
    expect(graph.edges.filter((e) => e.event === 'RESET').map((e) => `${e.source} > ${e.target}`)).toEqual([
      'both.a > both.a.a1', 'both.a > both.b.b1', 'both.b > both.a.a1', 'both.b > both.b.b1',
    ]);
    await expectMermaidToShow(both, toMermaid(graph));
    expectSvgToShow(both, toSvg(graph));
  });

  it('should keep Mermaid ids valid and distinct whatever the state keys', async () => {
    const odd = createMachine({
      id: 'odd',
      initial: 'state',
      states: {
        state: { on: { GO: 'note' } },
        note: { initial: 'a', states: { a: { on: { GO: 'end' } }, end: {} } },
        'a b': { initial: 'a', states: { a: {} } },
        'a-b': {},
        class: { initial: 'x_start', states: { x_start: { on: { GO: '#odd.a b' } } } },
        end: { type: 'final' },
      },
    });
    await expectMermaidToShow(odd, toMermaid(machineGraph(odd)));
  });

  it('should change the pictures when the machine changes', async () => {
    const config = { id: 'c', initial: 'a', states: { a: { on: { GO: 'b' } }, b: {} } } as const;
    const before = machineGraph(createMachine(config));
    const grown = createMachine({ ...config, states: { ...config.states, b: { on: { NEXT: 'c' } }, c: { type: 'final' } } });
    const after = machineGraph(grown);
    expect(after.edges.length).toBe(before.edges.length + 1);
    expect(after.nodes.length).toBe(before.nodes.length + 1);
    expect((await parseMermaid(toMermaid(after), 'c')).edges.length).toBe((await parseMermaid(toMermaid(before), 'c')).edges.length + 1);
    const count = (svg: string, selector: string): number => parseSvg(svg).querySelectorAll(selector).length;
    expect(count(toSvg(after), 'g.transition')).toBe(count(toSvg(before), 'g.transition') + 1);
    expect(count(toSvg(after), 'g.state')).toBe(count(toSvg(before), 'g.state') + 1);
    await expectMermaidToShow(grown, toMermaid(after));
  });

  it('should highlight the current states in both renderers', async () => {
    const graph = machineGraph(requesterMachine);
    const highlight = activeStateIds(graph.id, { polling: 'waiting' });
    expect(highlight).toEqual(['requester.polling', 'requester.polling.waiting']);
    const parsed = await parseMermaid(toMermaid(graph, { highlight }), 'requester');
    expect(parsed.states.filter((s) => s.classes.includes('current')).map((s) => s.path)).toEqual(highlight);
    const doc = parseSvg(toSvg(graph, { highlight }));
    expect([...doc.querySelectorAll('g.state.current')].map((g) => g.getAttribute('data-state'))).toEqual(highlight);
    expect(toMermaid(graph)).not.toContain('current');
  });

  it('should be checked by a parser that rejects broken diagrams', async () => {
    await expect(parseMermaid('stateDiagram-v2\n  a --> --> b\n', 'x')).rejects.toThrow(/Parse error/);
    // Mermaid's parser accepts a raw `;` but reads it as a new statement: hence the escaping, and
    // hence checking what was parsed rather than only that parsing succeeded.
    const raw = await parseMermaid('stateDiagram-v2\n  a --> b : x;y\n', 'x');
    expect(raw.edges).toEqual([{ source: 'x.a', target: 'x.b', label: 'x' }]);
    expect(raw.states.map((s) => s.path)).toEqual(['x.a', 'x.b', 'x.;y']);
    expect(() => parseSvg('<svg xmlns="http://www.w3.org/2000/svg"><g></svg>')).toThrow(/not well-formed/);
  });
});
