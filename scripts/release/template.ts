/**
 * `{{name}}` substitution with optional line sections `{{#name}}` ... `{{/name}}`, which are kept or
 * dropped whole. Anything left unfilled is an error, so a package manager never sees a `{{...}}`.
 */

export interface RenderOptions {
  /** Which sections to keep; a section not named here is an error. */
  sections?: Record<string, boolean>;
  /** Makes a value safe inside the target language's string literal. */
  escape?: (value: string) => string;
}

/** A section's opening and closing markers each stand alone on a line, indentation allowed. */
const SECTION = /^[ \t]*\{\{#([\w.-]+)\}\}[ \t]*\n([\s\S]*?)^[ \t]*\{\{\/\1\}\}[ \t]*\n/gm;
const PLACEHOLDER = /\{\{([\w.-]+)\}\}/g;
const LEFTOVER = /\{\{[^{}\n]*\}\}/;

export function renderTemplate(
  template: string,
  values: Record<string, string>,
  { sections = {}, escape = (value) => value }: RenderOptions = {},
): string {
  const kept = keepSections(template, sections);
  const missing = new Set<string>();
  const rendered = kept.replace(PLACEHOLDER, (placeholder, name: string) => {
    if (Object.hasOwn(values, name)) return escape(values[name]);
    missing.add(name);
    return placeholder;
  });
  if (missing.size > 0) {
    throw new Error(`Template placeholders left unfilled: ${[...missing].map((name) => `"{{${name}}}"`).join(", ")}`);
  }
  // A malformed marker (a section not on its own line, a typo) is not a placeholder but is as bad.
  // Checked on the template, not the output, so a value that happens to contain braces is fine.
  const stray = kept.replace(PLACEHOLDER, "").match(LEFTOVER);
  if (stray) throw new Error(`Template marker "${stray[0]}" left unfilled`);
  return rendered;
}

function keepSections(text: string, sections: Record<string, boolean>): string {
  return text.replace(SECTION, (_section, name: string, body: string) => {
    if (!Object.hasOwn(sections, name)) throw new Error(`Template section "{{#${name}}}" has no value`);
    return sections[name] ? keepSections(body, sections) : "";
  });
}

/** For Ruby double-quoted strings: no interpolation, no early end. */
export function escapeRubyString(value: string): string {
  return value.replace(/[\\"#]/g, (char) => `\\${char}`);
}

/** For JSON strings. */
export function escapeJsonString(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}
