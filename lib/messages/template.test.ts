import { describe, expect, it } from 'vitest';
import { parseTemplate, renderTemplate, type TemplateVars } from './template';

/** `vars` that count how many values the renderer reads. */
function countingVars(vars: TemplateVars): { vars: TemplateVars; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(vars, {
    get(target, name, receiver) {
      reads++;
      return Reflect.get(target, name, receiver);
    },
  });
  return { vars: proxy, reads: () => reads };
}

describe('renderTemplate', () => {
  it('replaces each placeholder, spaces inside the braces allowed', () => {
    expect(renderTemplate('Hi {{name}}, table {{ table }} at {{name}}', { name: 'Ada', table: 4 })).toEqual({
      status: 'rendered',
      text: 'Hi Ada, table 4 at Ada',
    });
  });
  it('names every missing variable once', () => {
    expect(renderTemplate('{{a}} {{b}} {{a}}', { b: 'x' })).toEqual({ status: 'missing', missing: ['a'] });
    expect(renderTemplate('{{a}}', undefined)).toEqual({ status: 'missing', missing: ['a'] });
  });
  it('leaves text without placeholders, and inherited names, alone', () => {
    expect(renderTemplate('Plain {text} {{ }}', undefined)).toEqual({ status: 'rendered', text: 'Plain {text} {{ }}' });
    expect(renderTemplate('{{toString}}', {})).toEqual({ status: 'missing', missing: ['toString'] });
  });
  it('renders a parsed template as its text', () => {
    const template = parseTemplate('a{{x}}b{{ y }}c');
    expect(template).toEqual({ literals: ['a', 'b', 'c'], names: ['x', 'y'] });
    expect(renderTemplate(template, { x: 1, y: 'Y' })).toEqual({ status: 'rendered', text: 'a1bYc' });
  });
  it('a text of exactly the maximum length renders; one character more is too long', () => {
    expect(renderTemplate('{{a}}!', { a: 'x'.repeat(9) }, 10)).toEqual({
      status: 'rendered',
      text: `${'x'.repeat(9)}!`,
    });
    expect(renderTemplate('{{a}}!!', { a: 'x'.repeat(9) }, 10)).toEqual({ status: 'too_long' });
    expect(renderTemplate('x'.repeat(11), undefined, 10)).toEqual({ status: 'too_long' });
  });
  it('stops reading values once the text passes the maximum: 320 placeholders of 1,600 characters read two', () => {
    const counted = countingVars({ a: 'x'.repeat(1600) });
    expect(renderTemplate('{{a}}'.repeat(320), counted.vars, 1600)).toEqual({ status: 'too_long' });
    expect(counted.reads()).toBe(2);
  });
  it('still reports a missing variable after the text passes the maximum, as a missing variable', () => {
    const counted = countingVars({ a: 'x'.repeat(1600) });
    expect(renderTemplate(`${'{{a}}'.repeat(300)}{{b}}`, counted.vars, 1600)).toEqual({
      status: 'missing',
      missing: ['b'],
    });
    expect(counted.reads()).toBe(2);
  });
});
