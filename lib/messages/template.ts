/** `{{name}}` (spaces inside the braces allowed): a variable of a bulk recipient's `vars`. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

export type TemplateVars = Record<string, string | number>;

/** A content split once at its placeholders: `literals` around `names` (one more literal than names). */
export type Template = { literals: string[]; names: string[] };

export function parseTemplate(content: string): Template {
  const literals: string[] = [];
  const names: string[] = [];
  let from = 0;
  for (const match of content.matchAll(PLACEHOLDER)) {
    literals.push(content.slice(from, match.index));
    names.push(match[1]!);
    from = match.index + match[0].length;
  }
  literals.push(content.slice(from));
  return { literals, names };
}

export type Rendering =
  | { status: 'rendered'; text: string }
  | { status: 'missing'; missing: string[] }
  | { status: 'too_long' };

/**
 * The template with every placeholder replaced, or the names of the variables it lacks, or
 * `too_long` when the text would pass `maxLength`: the text stops growing there (a few long
 * values repeated many times cost no more than one over-long text), and only the presence of
 * the remaining variables is checked, so that a missing variable is reported first, as ever.
 */
export function renderTemplate(
  template: Template | string,
  vars: TemplateVars | undefined,
  maxLength = Number.POSITIVE_INFINITY,
): Rendering {
  const { literals, names } = typeof template === 'string' ? parseTemplate(template) : template;
  const missing = new Set<string>();
  const parts: string[] = [literals[0]!];
  let length = literals[0]!.length;
  names.forEach((name, index) => {
    if (!vars || !Object.hasOwn(vars, name)) {
      missing.add(name);
      return;
    }
    if (length > maxLength || missing.size > 0) return;
    const value = String(vars[name]);
    const literal = literals[index + 1]!;
    parts.push(value, literal);
    length += value.length + literal.length;
  });
  if (missing.size > 0) return { status: 'missing', missing: [...missing] };
  if (length > maxLength) return { status: 'too_long' };
  return { status: 'rendered', text: parts.join('') };
}
