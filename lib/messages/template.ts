/** `{{name}}` (spaces inside the braces allowed): a variable of a bulk recipient's `vars`. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

export type TemplateVars = Record<string, string | number>;

/** The content with every placeholder replaced, or the names of the variables it lacks. */
export function renderTemplate(
  content: string,
  vars: TemplateVars | undefined,
): { text: string; missing: [] } | { text: null; missing: string[] } {
  const missing = new Set<string>();
  const text = content.replace(PLACEHOLDER, (whole, name: string) => {
    const value = vars && Object.hasOwn(vars, name) ? vars[name] : undefined;
    if (value === undefined) {
      missing.add(name);
      return whole;
    }
    return String(value);
  });
  return missing.size > 0 ? { text: null, missing: [...missing] } : { text, missing: [] };
}
