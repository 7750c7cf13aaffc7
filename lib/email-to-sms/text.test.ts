import { describe, expect, it } from 'vitest';
import { ownText, smsTextOf } from './text';

describe('the text of a mail', () => {
  it('drops quoted replies with their attribution, the signature and what follows an original message', () => {
    const body = [
      'Server  db1 is\tDOWN.',
      '',
      'On Mon, 2 Mar 2026, Ops <ops@example.org> wrote:',
      '> is it up?',
      '>> earlier',
      'Still checking: it wrote: nothing',
      '-----Original Message-----',
      'From: someone',
    ].join('\r\n');
    expect(ownText(body)).toBe('Server db1 is DOWN.\nStill checking: it wrote: nothing');
    expect(ownText('Call me\n-- \nJane\n555')).toBe('Call me');
    expect(ownText('bell\u0007 and\u0000 nul')).toBe('bell and nul');
  });

  it('reads a hostile body in time linear in its length', () => {
    const lines = 200_000;
    const started = performance.now();
    expect(ownText('x wrote:\n'.repeat(lines))).toHaveLength(lines * 'x wrote:\n'.length - 1);
    expect(ownText('>\n'.repeat(lines))).toBe('');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('sends the subject of an empty body, and refuses or cuts a text past the limit', () => {
    expect(smsTextOf({ subject: 'PROBLEM: disk', body: '' }, { subjectPrefix: false, truncate: false })).toBe(
      'PROBLEM: disk',
    );
    expect(() => smsTextOf({ subject: '', body: ' \n-- \nsig' }, { subjectPrefix: true, truncate: false })).toThrow(
      /no text/,
    );
    expect(() => smsTextOf({ subject: '', body: 'a'.repeat(1601) }, { subjectPrefix: false, truncate: false })).toThrow(
      /at most 1600/,
    );
    const cut = smsTextOf({ subject: '', body: `${'a'.repeat(1599)}😀` }, { subjectPrefix: false, truncate: true });
    expect(cut).toBe('a'.repeat(1599));
  });
});
