import { afterEach, describe, expect, it, vi } from 'vitest';
import { log } from '@/lib/log';
import { beginShutdown, resetShutdownForTests } from '@/lib/runtime/lifecycle';
import { presenceNotRecorded } from './events';

afterEach(() => {
  resetShutdownForTests();
  vi.restoreAllMocks();
});

describe('presenceNotRecorded', () => {
  it('warns of a failed presence write, but not of one the instance’s shutdown cut off', () => {
    const warn = vi.spyOn(log, 'warn').mockImplementation(() => {});
    const error = new Error('write CONNECTION_ENDED 127.0.0.1:5432');
    presenceNotRecorded(error, 'device-1');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith({ err: error, deviceId: 'device-1' }, 'could not record app presence');
    beginShutdown();
    presenceNotRecorded(error, 'device-1');
    expect(warn).toHaveBeenCalledTimes(1);
  });
});
