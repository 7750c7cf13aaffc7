import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSmsGateEncrypted } from './smsgate-format';

/** The format as a regular expression: the accepted set, for short inputs only (it is quadratic). */
const REFERENCE = /^\$aes-256-cbc\/pbkdf2-sha1\$[^$]*i=\d+[^$]*\$[A-Za-z0-9+/=\s]+\$[A-Za-z0-9+/=\s]+$/;

const SAMPLES = [
  '$aes-256-cbc/pbkdf2-sha1$i=75000$AAECAwQFBgcICQoLDA0ODw==$f0s3Zm9v',
  '$aes-256-cbc/pbkdf2-sha1$i=1$A$B',
  '$aes-256-cbc/pbkdf2-sha1$x=2,i=1000,y$AA AA\n$BB==',
  '$aes-256-cbc/pbkdf2-sha1$xi=9$A$B',
  '$aes-256-cbc/pbkdf2-sha1$i=$A$B',
  '$aes-256-cbc/pbkdf2-sha1$i=x1$A$B',
  '$aes-256-cbc/pbkdf2-sha1$$A$B',
  '$aes-256-cbc/pbkdf2-sha1$i=1$$B',
  '$aes-256-cbc/pbkdf2-sha1$i=1$A$',
  '$aes-256-cbc/pbkdf2-sha1$i=1$A$B$C',
  '$aes-256-cbc/pbkdf2-sha1$i=1$A-$B',
  '$aes-256-cbc/pbkdf2-sha1$i=1$A$B!',
  '$aes-128-cbc/pbkdf2-sha1$i=1$A$B',
  'aes-256-cbc/pbkdf2-sha1$i=1$A$B',
  ' $aes-256-cbc/pbkdf2-sha1$i=1$A$B',
  '$aes-256-cbc/pbkdf2-sha1$i=1$A$B\n',
  '$aes-256-cbc/pbkdf2-sha1$I=1$A$B',
  'plain text',
  '+14155550100',
  '',
  '$',
];

describe('isSmsGateEncrypted', () => {
  it('accepts exactly what the format’s regular expression accepts', () => {
    for (const sample of SAMPLES)
      expect([sample, isSmsGateEncrypted(sample)]).toEqual([sample, REFERENCE.test(sample)]);
  });

  it('answers the repeated `i=1` of 8 KB in linear time', () => {
    const value = `$aes-256-cbc/pbkdf2-sha1$${'i=1'.repeat(2722)}`;
    const started = performance.now();
    for (let i = 0; i < 120; i++) expect(isSmsGateEncrypted(value)).toBe(false);
    // The regular expression took ~40 ms per value (4.75 s for 120); a split takes microseconds.
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('is the domain’s rule: lib and db import nothing from components', () => {
    const sources = (dir: string): string[] =>
      readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((file) => /\.tsx?$/.test(file))
        .map((file) => path.join(dir, file));
    const offenders = [...sources('lib'), ...sources('db')].filter((file) =>
      /from '@\/components\//.test(readFileSync(file, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
