import { describe, expect, it } from 'vitest';
import { migrateAgainOnLockConflict } from './client';

/** A PostgresError as postgres-js throws it, or wrapped as drizzle's migrator rethrows it. */
function conflict(code: string, wrapped = false): Error {
  const error = Object.assign(new Error(`postgres ${code}`), { code });
  return wrapped ? new Error('Failed query', { cause: error }) : error;
}

describe('migrateAgainOnLockConflict', () => {
  const pauses: number[] = [];
  const pause = async (ms: number) => {
    pauses.push(ms);
  };

  it('runs the migrations again after a deadlock or a lock timeout, wrapped or not', async () => {
    const failures = [conflict('40P01'), conflict('55P03', true)];
    let runs = 0;
    await migrateAgainOnLockConflict(
      async () => {
        runs++;
        const failure = failures.shift();
        if (failure) throw failure;
      },
      10,
      pause,
    );
    expect(runs).toBe(3);
    expect(pauses).toHaveLength(2);
  });

  it('fails at once on anything but a lock conflict', async () => {
    let runs = 0;
    const failing = migrateAgainOnLockConflict(
      async () => {
        runs++;
        throw conflict('42P07');
      },
      10,
      pause,
    );
    await expect(failing).rejects.toThrow('postgres 42P07');
    expect(runs).toBe(1);
  });

  it('gives up after its attempts, with the last conflict', async () => {
    let runs = 0;
    const failing = migrateAgainOnLockConflict(
      async () => {
        runs++;
        throw conflict('40P01');
      },
      3,
      pause,
    );
    await expect(failing).rejects.toThrow('postgres 40P01');
    expect(runs).toBe(3);
  });
});
