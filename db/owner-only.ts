import fs from 'node:fs';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';

/** Group and other permission bits: none of them on the embedded database's files. */
const GROUP_AND_OTHERS = 0o077;

/**
 * Takes group and other permissions away from `target` and, with `recursive`, from everything under
 * it (0700 folders, 0600 files as PostgreSQL keeps them; symbolic links are left alone). Answers how
 * many entries it changed. PGlite writes the files of a new database folder as 0666 whatever the
 * umask, so this runs after it creates one, and at each open to repair a folder made before.
 */
export function restrictToOwner(target: string, options: { recursive: boolean }): number {
  let changed = 0;
  const pending = [target];
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(entry);
    } catch {
      continue; // removed meanwhile (a temporary file of the database)
    }
    if (stat.isSymbolicLink()) continue;
    if (stat.mode & GROUP_AND_OTHERS) {
      fs.chmodSync(entry, stat.mode & 0o7777 & ~GROUP_AND_OTHERS);
      changed++;
    }
    if (options.recursive && stat.isDirectory()) {
      for (const name of fs.readdirSync(entry)) pending.push(path.join(entry, name));
    }
  }
  return changed;
}

/**
 * Runs `work` with the process's umask at 077, restored after: what it creates is its owner's only.
 * The umask is the whole process's (a worker thread may not set it: there `work` just runs, and
 * restrictToOwner afterwards is what holds).
 */
export async function withOwnerOnlyUmask<T>(work: () => Promise<T>): Promise<T> {
  if (!isMainThread) return work();
  const previous = process.umask(GROUP_AND_OTHERS);
  try {
    return await work();
  } finally {
    process.umask(previous);
  }
}
