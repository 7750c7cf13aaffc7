import { describe, expect, it } from 'vitest';
import { DomainError, statusOf } from '@/lib/errors';
import { problemBody } from '@/lib/net/problem';

describe('the status of a domain error comes from the catalogue alone', () => {
  it('a send refused for credits answers 402 and a transfer 400, with one code', () => {
    expect(statusOf('INSUFFICIENT_CREDITS', 'send')).toBe(402);
    expect(statusOf('INSUFFICIENT_CREDITS', 'transfer')).toBe(400);
    expect(statusOf('INSUFFICIENT_CREDITS')).toBe(402);
  });

  it('problem bodies and errors agree with the catalogue', () => {
    const refused = new DomainError('INSUFFICIENT_CREDITS', 'Group 1 has 0 credit(s); 5 needed.', {
      operation: 'transfer',
    });
    expect(refused.status).toBe(400);
    expect(problemBody(refused.code, refused.detail, { operation: refused.operation })).toMatchObject({
      status: 400,
      code: 'INSUFFICIENT_CREDITS',
    });
    expect(problemBody('GROUP_NOT_FOUND', 'gone', { operation: 'transfer' }).status).toBe(404);
  });
});
