import { describe, expect, it } from 'vitest';
import { DomainError } from './errors';

describe('DomainError across copies of its module', () => {
  it('recognises an error made by another bundle’s copy of the class, and nothing else', () => {
    // What another bundle's DomainError is: another class, with the same global mark.
    const otherCopy = Object.assign(new Error('UNAUTHENTICATED: no'), {
      [Symbol.for('simgate.DomainError')]: true,
      code: 'UNAUTHENTICATED',
    });
    expect(otherCopy).toBeInstanceOf(DomainError);
    expect(new DomainError('UNAUTHENTICATED', 'no')).toBeInstanceOf(DomainError);
    expect(new Error('plain')).not.toBeInstanceOf(DomainError);
    expect((null as unknown as object) instanceof DomainError).toBe(false);
  });
});
