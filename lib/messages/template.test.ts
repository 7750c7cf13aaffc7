import { describe, expect, it } from 'vitest';
import { renderTemplate } from './template';

describe('renderTemplate', () => {
  it('replaces each placeholder, spaces inside the braces allowed', () => {
    expect(renderTemplate('Hi {{name}}, table {{ table }} at {{name}}', { name: 'Ada', table: 4 })).toEqual({
      text: 'Hi Ada, table 4 at Ada',
      missing: [],
    });
  });
  it('names every missing variable once', () => {
    expect(renderTemplate('{{a}} {{b}} {{a}}', { b: 'x' })).toEqual({ text: null, missing: ['a'] });
    expect(renderTemplate('{{a}}', undefined)).toEqual({ text: null, missing: ['a'] });
  });
  it('leaves text without placeholders, and inherited names, alone', () => {
    expect(renderTemplate('Plain {text} {{ }}', undefined)).toEqual({ text: 'Plain {text} {{ }}', missing: [] });
    expect(renderTemplate('{{toString}}', {})).toEqual({ text: null, missing: ['toString'] });
  });
});
