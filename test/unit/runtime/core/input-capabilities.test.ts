import { describe, expect, it } from 'vitest';
import { declaredInputCapabilities, keptInputCapabilities, refusedInput } from '../../../../runtime/core/input-capabilities.js';
import { InputUnsupportedError, InvalidArgumentError, TaskErrorCode } from '../../../../runtime/errors.js';

describe('input capabilities', () => {
  it('should read the declared input capabilities from client capabilities, and nothing when they are not known', () => {
    expect(declaredInputCapabilities({ sampling: {}, roots: { listChanged: true }, tasks: {}, extensions: {} })).toEqual(['roots', 'sampling']);
    expect(declaredInputCapabilities({ elicitation: { form: {} } })).toEqual(['elicitation']);
    expect(declaredInputCapabilities({ elicitation: undefined, sampling: null })).toEqual([]);
    expect(declaredInputCapabilities({})).toEqual([]);
    expect(declaredInputCapabilities(undefined)).toBeUndefined();
  });

  it('should refuse a method whose capability was not declared, naming the capability', () => {
    const refused = refusedInput('elicitation/create', ['sampling']);
    expect(refused).toBeInstanceOf(InputUnsupportedError);
    expect(refused).toMatchObject({ code: TaskErrorCode.inputUnsupported, capability: 'elicitation', method: 'elicitation/create' });
    expect(refused?.message).toBe("The requester did not declare the 'elicitation' capability, so this task cannot ask it (elicitation/create)");
    expect(refusedInput('sampling/createMessage', [])?.capability).toBe('sampling');
    expect(refusedInput('roots/list', ['elicitation'])?.capability).toBe('roots');
  });

  it('should let through a declared method, a method it does not know, and anything when nothing is known', () => {
    expect(refusedInput('elicitation/create', ['elicitation'])).toBeNull();
    expect(refusedInput('sampling/createMessage', ['elicitation', 'sampling'])).toBeNull();
    expect(refusedInput('x/custom', [])).toBeNull();
    // A key of Object.prototype is no method's capability.
    expect(refusedInput('constructor', [])).toBeNull();
    expect(refusedInput('elicitation/create', undefined)).toBeNull();
  });

  it('should keep only the input capabilities of what a create gives, and refuse what is not a list of names', () => {
    expect(keptInputCapabilities(['tasks', 'sampling', 'elicitation', 'sampling'])).toEqual(['elicitation', 'sampling']);
    expect(keptInputCapabilities([])).toEqual([]);
    expect(keptInputCapabilities(undefined)).toBeUndefined();
    expect(() => keptInputCapabilities('elicitation')).toThrow(InvalidArgumentError);
    expect(() => keptInputCapabilities([1])).toThrow(/requesterCapabilities must be an array/);
  });
});
