import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../runtime/errors.js';
import { checkPushJob, wantsPush } from '../../../runtime/push/push-job.js';
import type { PushJob } from '../../../runtime/push/push.types.js';

const job: PushJob = {
  target: { url: 'https://hooks.example.com/x', secret: 's', events: 'terminal' },
  event: { id: 'e-1', taskId: 't-1', status: 'completed', statusMessage: null, at: 1, body: {} },
  until: null,
  attempt: 0,
};

describe('wantsPush', () => {
  it('should tell terminal targets about input_required and every end, and all targets about everything', () => {
    for (const status of ['input_required', 'completed', 'failed', 'cancelled', 'unknown']) expect(wantsPush('terminal', status), status).toBe(true);
    for (const status of ['submitted', 'working']) expect(wantsPush('terminal', status), status).toBe(false);
    for (const status of ['submitted', 'working', 'completed']) expect(wantsPush('all', status), status).toBe(true);
  });
});

describe('checkPushJob', () => {
  it('should accept a well-formed job', () => {
    expect(() => checkPushJob(job)).not.toThrow();
    expect(() => checkPushJob({ ...job, until: 5, attempt: 2 })).not.toThrow();
  });

  it('should name the field that is wrong', () => {
    const bad: [unknown, RegExp][] = [
      [null, /object/],
      [{ ...job, target: { ...job.target, url: '' } }, /target\.url/],
      [{ ...job, target: { ...job.target, secret: '' } }, /target\.secret/],
      [{ ...job, target: { ...job.target, events: 'some' } }, /target\.events/],
      [{ ...job, event: { ...job.event, id: '' } }, /event\.id/],
      [{ ...job, event: { ...job.event, body: null } }, /event\.body/],
      [{ ...job, until: Number.NaN }, /until/],
      [{ ...job, attempt: -1 }, /attempt/],
    ];
    for (const [value, message] of bad) {
      const thrown = (() => {
        try {
          checkPushJob(value as PushJob);
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(thrown).toBeInstanceOf(InvalidArgumentError);
      expect((thrown as Error).message).toMatch(message);
    }
  });
});
