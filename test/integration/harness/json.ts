/** Small readers for JSON-RPC answers, shared by the suites. */
import { isRecord, type JSONRPCResponse } from './types.js';

/** A JSON object. */
export type Rec = Record<string, unknown>;

/** Waits `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The `_meta` object of a message or result, if it has one. */
export function metaOf(value: unknown): Rec | undefined {
  if (!isRecord(value)) return undefined;
  const meta = value['_meta'];
  return isRecord(meta) ? meta : undefined;
}

/** Asserts a successful response and returns its result. */
export function ok(res: JSONRPCResponse): Rec {
  if (res.error !== undefined || !isRecord(res.result)) {
    throw new Error(`expected a result, got ${JSON.stringify(res)}`);
  }
  return res.result;
}
