/**
 * Creating a JetStream stream, durable consumer or KV bucket that every node of a task space may
 * create at the same moment: one rule for all of them.
 *
 * @module
 */
import { JetStreamApiCodes, JetStreamApiError, jetstreamManager, type ConsumerConfig, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';
import { Kvm, type KV, type KvOptions } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';

/**
 * Makes sure the stream `config.name` exists, creating it when it does not. Nodes that start
 * together all see "not found" and all ask to create it; the server may refuse the losers with an
 * error of its own (nats-server 2.9 answers "subjects overlap with an existing stream" while the
 * winner's stream is being set up), so a refused creation counts as done when the stream is there
 * once asked again. Only a creation that fails and leaves no stream behind is an error.
 *
 * @param jsm - a JetStream manager
 * @param config - the stream to create; its `name` is what is looked up
 * @example
 * ```ts
 * await ensureStream(jsm, { name: 'tasks_work', subjects: ['tasks.work'], retention: RetentionPolicy.Workqueue });
 * ```
 */
export async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { readonly name: string }): Promise<void> {
  if (await exists(() => jsm.streams.info(config.name), JetStreamApiCodes.StreamNotFound)) return;
  try {
    await jsm.streams.add(config);
  } catch (error) {
    if (!(error instanceof JetStreamApiError) || !(await exists(() => jsm.streams.info(config.name), JetStreamApiCodes.StreamNotFound))) throw error;
  }
}

/**
 * Makes sure the durable consumer `config.durable_name` of `stream` exists, by the same rule as
 * {@link ensureStream}: a creation another node won is not an error.
 *
 * @param jsm - a JetStream manager
 * @param stream - the stream's name
 * @param config - the consumer to create; its `durable_name` is what is looked up
 * @example
 * ```ts
 * await ensureConsumer(jsm, 'tasks_work', { durable_name: 'tasks_workers', ack_policy: AckPolicy.Explicit });
 * ```
 */
export async function ensureConsumer(jsm: JetStreamManager, stream: string, config: Partial<ConsumerConfig> & { readonly durable_name: string }): Promise<void> {
  const lookup = () => jsm.consumers.info(stream, config.durable_name);
  if (await exists(lookup, JetStreamApiCodes.ConsumerNotFound)) return;
  try {
    await jsm.consumers.add(stream, config);
  } catch (error) {
    if (!(error instanceof JetStreamApiError) || !(await exists(lookup, JetStreamApiCodes.ConsumerNotFound))) throw error;
  }
}

/**
 * Opens the KV bucket `name`, creating it when it does not exist, by the same rule as
 * {@link ensureStream}: a creation another node won is not an error. Asked a second time, the
 * client finds the winner's bucket and binds to it.
 *
 * @param nc - a connection from `connectNats`
 * @param name - the bucket's name (its stream is `KV_<name>`)
 * @param options - the bucket's options, used when it is created
 * @example
 * ```ts
 * const kv = await ensureBucket(nc, 'tasks_nodes', { history: 1, storage: 'file' });
 * ```
 */
export async function ensureBucket(nc: NatsConnection, name: string, options: Partial<KvOptions>): Promise<KV> {
  try {
    return await new Kvm(nc).create(name, options);
  } catch (error) {
    const jsm = await jetstreamManager(nc);
    if (!(error instanceof JetStreamApiError) || !(await exists(() => jsm.streams.info(`KV_${name}`), JetStreamApiCodes.StreamNotFound))) throw error;
    return new Kvm(nc).create(name, options);
  }
}

async function exists(lookup: () => Promise<unknown>, notFound: number): Promise<boolean> {
  try {
    await lookup();
    return true;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === notFound) return false;
    throw error;
  }
}
