/**
 * A point one side of a concurrent test waits for and the other reaches (a lock taken, a transaction
 * to let go): `reached` resolves once `reach` is called, with its value.
 */
export function latch<T = void>(): { reached: Promise<T>; reach: (value: T) => void } {
  let reach!: (value: T) => void;
  const reached = new Promise<T>((resolve) => {
    reach = resolve;
  });
  return { reached, reach };
}
