// The private SDK fields of SDK_INTERNALS against the installed SDK: each is there with its kind,
// a missing or changed one fails loudly (named, with the SDK version), and the list is complete.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { describe, expect, it } from 'vitest';
import { placesHere, spreadRequestIds } from '../../../adapters/http/session-restore.js';
import { assertSdkInternals, checkSdkInternals, freshSdkProbes, type SdkProbes } from '../../../adapters/mcp-server/sdk-internals-check.js';
import { awaitsResponse, SDK_INTERNALS, SdkInternalsError, type SdkInternalField } from '../../../adapters/mcp-server/sdk-internals.js';
import { installedSdkVersion } from '../../../adapters/mcp-server/sdk-version.js';
import { V2_SDK_INTERNALS } from '../../../adapters/mcp-server-v2/v2-sdk-internals.js';

const ROOT = new URL('../../../', import.meta.url).pathname;
const SDK_VERSION = (JSON.parse(readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')) as { version: string }).version;

/** The instances that carry a field of `owner` (Protocol fields are on every Server and Client). */
function carriers(probes: SdkProbes, owner: SdkInternalField['owner']): object[] {
  if (owner === 'Protocol') return [probes.server, probes.client];
  if (owner === 'Server') return [probes.server];
  if (owner === 'McpServer') return [probes.mcp];
  if (owner === 'StreamableHTTPServerTransport') return [probes.transport];
  return [Reflect.get(probes.transport, '_webStandardTransport') as object];
}

/** The kind of a value, worked out here on its own rather than by the checker under test. */
function kindOf(value: unknown): string {
  if (value instanceof Map) return 'Map';
  return value === null ? 'null' : typeof value;
}

/** A rename of `field`: the instance that carries it no longer has it under that name. */
function rename(probes: SdkProbes, field: SdkInternalField): void {
  const [carrier] = carriers(probes, field.owner) as [object];
  // The `?` fields are unset until initialize, so a rename shows in the public getter that now
  // reads another name; the transport's sessionId getter likewise.
  const getters: Record<string, string> = { _clientCapabilities: 'getClientCapabilities', _clientVersion: 'getClientVersion' };
  const getter = getters[field.name];
  if (getter !== undefined) return void Reflect.set(probes.server, getter, () => Reflect.get(probes.server, `${field.name}Renamed`));
  if (field.name === 'sessionId') return void Object.defineProperty(probes.transport, 'sessionId', { get: () => undefined });
  Object.defineProperty(carrier, field.name, { value: undefined, configurable: true, writable: true });
}

describe('sdk-internals', () => {
  it('should read the installed SDK version from its package.json although the exports map hides it', () => {
    expect(installedSdkVersion()).toBe(SDK_VERSION);
  });

  it.each(SDK_INTERNALS.map((f) => [`${f.owner}.${f.name}`, f] as const))('should find %s with its kind on real SDK instances', (_, field) => {
    const probes = freshSdkProbes();
    for (const carrier of carriers(probes, field.owner)) {
      const kind = kindOf(Reflect.get(carrier, field.name));
      expect(field.kind.endsWith('?') ? ['undefined', field.kind.slice(0, -1)] : [field.kind]).toContain(kind);
    }
  });

  it('should pass the start-up check on the installed SDK, every time', () => {
    expect(() => checkSdkInternals(freshSdkProbes())).not.toThrow();
    expect(() => assertSdkInternals()).not.toThrow();
    expect(() => assertSdkInternals()).not.toThrow();
  });

  it.each(SDK_INTERNALS.map((f) => [`${f.owner}.${f.name}`, f] as const))('should fail loudly naming %s and the SDK version when it is renamed', (name, field) => {
    const probes = freshSdkProbes();
    rename(probes, field);
    const error = catchError(() => checkSdkInternals(probes));
    expect(error).toBeInstanceOf(SdkInternalsError);
    expect((error as SdkInternalsError).field).toBe(name);
    expect((error as SdkInternalsError).sdkVersion).toBe(SDK_VERSION);
    expect(error.message).toContain(name);
    expect(error.message).toContain(`@modelcontextprotocol/sdk ${SDK_VERSION}`);
  });

  it('should name the class of the instance when only a Client lost a Protocol field', () => {
    const probes = freshSdkProbes();
    Object.defineProperty(probes.client, '_notificationHandlers', { value: undefined });
    expect(() => checkSdkInternals(probes)).toThrow(/Protocol\._notificationHandlers is missing on a Client/);
  });

  it('should fail loudly when a field changed kind', () => {
    const probes = freshSdkProbes();
    Object.defineProperty(probes.server, '_responseHandlers', { value: {} });
    expect(() => checkSdkInternals(probes)).toThrow(/Protocol\._responseHandlers is an object of class Object on a Server, expected Map/);
  });

  it('should throw from the accessors where the old code fell back silently', () => {
    const server = new Server({ name: 's', version: '0' }, { capabilities: {} });
    Object.defineProperty(server, '_responseHandlers', { value: undefined });
    Object.defineProperty(server, '_requestMessageId', { value: undefined });
    // Before: `?? true`, which kept every answer from being relayed to the node that asked.
    expect(() => placesHere(server, { jsonrpc: '2.0', id: 1, result: {} })).toThrow(SdkInternalsError);
    expect(() => awaitsResponse(server, 1)).toThrow(/_responseHandlers/);
    // Before: a no-op, which left every node counting request ids from 0.
    expect(() => spreadRequestIds(server)).toThrow(/Protocol\._requestMessageId is missing/);
  });

  it('should list every underscore field the source reaches, and reach them only through sdk-internals', () => {
    const listed = new Set<string>([...SDK_INTERNALS, ...V2_SDK_INTERNALS].map((f) => f.name));
    // Underscore names of other libraries' declared types, not SDK internals: where each may be read.
    const declaredElsewhere: Record<string, string> = {
      _scheduledEvents: 'runtime/handlers/machine-checkpoints.ts' /* XState's ActorSystem.getSnapshot() */,
      _OTHER: 'runtime/telemetry/metric-labels.ts' /* the OpenTelemetry conventions' value for a name outside a known set */,
    };
    const reached = new Map<string, Set<string>>();
    for (const file of sourceFiles(['adapters', 'runtime'])) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      // `_meta` is a field of MCP messages on the wire, not of an SDK object.
      const names = [...text.matchAll(/\.\s*(_[A-Za-z]\w*)|(['"`])(_[A-Za-z]\w*)\2/g)].map((m) => m[1] ?? m[3]).filter((n) => n !== '_meta' && declaredElsewhere[n as string] !== file);
      for (const name of names) reached.set(name as string, (reached.get(name as string) ?? new Set()).add(file));
      const accessed = [...text.matchAll(/\.\s*(_[A-Za-z]\w*)|\[\s*(['"`])(_[A-Za-z]\w*)\2\s*\]/g)].map((m) => m[1] ?? m[3]).filter((n) => n !== '_meta' && declaredElsewhere[n as string] !== file);
      if (!file.endsWith('sdk-internals.ts')) expect({ file, accessed }).toEqual({ file, accessed: [] });
    }
    const unlisted = [...reached].filter(([name]) => !listed.has(name)).map(([name, files]) => `${name} in ${[...files].join(', ')}`);
    expect(unlisted).toEqual([]);
    // The scan does see the fields: each one of the list is named where it is used.
    for (const f of SDK_INTERNALS) if (f.name.startsWith('_')) expect(reached.has(f.name), f.name).toBe(true);
  });
});

function catchError(f: () => void): Error {
  try {
    f();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

function sourceFiles(dirs: readonly string[]): string[] {
  return dirs.flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(dir, f)),
  );
}
