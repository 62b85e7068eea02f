/**
 * The flow suites' connectors for a NATS deployment: per connection, a front node
 * (`serve --http 0 --nats … --role front`) that the requester talks to and a separate worker node
 * (`serve --nats … --role worker`) that runs the tasks, on a fresh `--nats-prefix`. Both nodes get
 * the flags the suite passes: the worker needs the ones it applies while running a task
 * (`--max-result-bytes`, `--poll-frequency`, keep-alive flags for the records it writes), and
 * passing all of them keeps the two nodes' options equal, as a real deployment would.
 *
 * One `nats-server` (JetStream, temporary store dir) serves every connection of a test file: it is
 * started on the first connect and stopped by {@link stopSharedNats} (call it in `afterAll`), at
 * the latest when the test worker exits. Closing a wire (or SDK peer) kills both nodes.
 *
 * @module
 */
import { rmSync } from 'node:fs';
import { closeNodes, describeNodes, freshPrefix, startNodes, type ClusterNode } from './cluster.js';
import { attachHttpWire, attachInteractiveHttpWire } from './http-wire.js';
import { startNatsServer, type NatsServer } from './nats-server.js';
import { killPid, messageOf, withStderr } from './process.js';
import { connectSdkClientTo, type ConnectSdk, type SdkPeer } from './sdk-client.js';
import type { Connect, ConnectInteractive } from './types.js';

let shared: Promise<NatsServer> | undefined;

/** The test file's nats-server, started on first use. */
function sharedNats(): Promise<NatsServer> {
  shared ??= startNatsServer({ jetstream: true }).then((server) => {
    // The last resort when afterAll never ran: the process is killed by trackChild's own hook.
    process.once('exit', () => {
      killPid(server.pid);
      rmSync(server.storeDir, { recursive: true, force: true });
    });
    return server;
  });
  return shared;
}

/** Stops the shared nats-server (by pid) and removes its store dir. Idempotent; call in `afterAll`. */
export async function stopSharedNats(): Promise<void> {
  const pending = shared;
  shared = undefined;
  const server = await pending?.catch(() => undefined);
  await server?.stop();
}

/** A front node and a worker node on their own prefix of the shared nats-server. */
export interface FrontWorkerPair {
  readonly front: ClusterNode;
  readonly worker: ClusterNode;
  readonly prefix: string;
  /** The front node's MCP endpoint. */
  readonly url: string;
  /** Both nodes' stderr tails (front first), for failure messages. */
  stderr(): string;
  /** Kills both nodes. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts a worker node and a front node (in parallel) with the same `flags` on a fresh prefix, and
 * waits until both are ready.
 *
 * @throws Error with the nodes' stderr when one does not start (both are closed then)
 */
export async function startFrontWorker(flags: readonly string[] = []): Promise<FrontWorkerPair> {
  const nats = await sharedNats();
  const prefix = freshPrefix('contract');
  const [front, worker] = (await startNodes([
    { label: 'front', role: 'front', nats: nats.url, prefix, flags },
    { label: 'worker', role: 'worker', nats: nats.url, prefix, flags },
  ])) as [ClusterNode, ClusterNode];
  return {
    front,
    worker,
    prefix,
    url: front.url,
    stderr: () => describeNodes([front, worker], {}, 1_900),
    close: () => closeNodes([front, worker]),
  };
}

/** Starts a pair, runs `attach` against its front, and closes the pair if that fails. */
async function onPair<T>(flags: readonly string[], attach: (pair: FrontWorkerPair) => Promise<T>): Promise<T> {
  const pair = await startFrontWorker(flags);
  try {
    return await attach(pair);
  } catch (error) {
    await pair.close();
    throw withStderr(`nats front+worker connect failed (flags ${JSON.stringify(flags)}): ${messageOf(error)}`, pair.stderr());
  }
}

/** A raw wire to the front node of a fresh front+worker pair; closing it kills both nodes. */
export const connectNatsHttp: Connect = (flags = []) =>
  onPair(flags, (pair) => attachHttpWire(pair.url, () => pair.stderr(), { onClose: () => pair.close() }));

/** An interactive raw wire (declaring `capabilities`) to the front node of a fresh front+worker pair. */
export const connectInteractiveNatsHttp: ConnectInteractive = (options = {}) =>
  onPair(options.flags ?? [], (pair) => attachInteractiveHttpWire(pair.url, () => pair.stderr(), options.capabilities, { onClose: () => pair.close() }));

/** An SDK client on StreamableHTTPClientTransport to the front node of a fresh front+worker pair. */
export const connectSdkNatsHttp: ConnectSdk = (flags = []) =>
  onPair(flags, async (pair): Promise<SdkPeer> => {
    const peer = await connectSdkClientTo({ url: pair.url, stderr: () => pair.stderr() }, 'sdk-nats-test');
    return {
      ...peer,
      close: async () => {
        try {
          await peer.close();
        } finally {
          await pair.close();
        }
      },
    };
  });
