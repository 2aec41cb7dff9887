/**
 * Fingerprints, for pinning: the SHA-256 of a canonical JSON (keys sorted, no spaces) of what a
 * model reads of a server's text and what a call depends on. A tool's covers its name, title,
 * description, input and output schema and annotations; a prompt's its name, title, description
 * and arguments; a resource's and a template's their name, title and description; the server's
 * instructions their text; a skill's (Skills extension) its frontmatter and its files' digests and
 * sizes (skillFiles), or "dynamic" for a skill that publishes none. The pin keeps those parts too, so that an approval can show the old
 * text and a refusal can say which part changed.
 */
import type { Tool } from "../protocol/sdk.ts";
import { sha256Hex } from "../cache/sha256.ts";
import { canonicalJson, sortKeys } from "../cache/canonical-json.ts";

export { canonicalJson };

/** What the lock file keeps of one tool (or text): its fingerprint and the parts it was made of. */
export interface Pin {
  sha256: string;
  [part: string]: unknown;
}

/** The parts a fingerprint covers besides the name, with the words a message uses for each. */
export type Parts = readonly (readonly [string, string])[];

/** A tool's parts. `title` came later: a pin made before has no `title` key (see legacyMatch). */
export const PINNED_PARTS = [
  ["title", "title"],
  ["description", "description"],
  ["inputSchema", "input schema"],
  ["outputSchema", "output schema"],
  ["annotations", "annotations"],
] as const satisfies Parts;

/** The texts besides tools a server puts before the model, each pinned by its key (see textKey). */
export type TextKind = "prompt" | "resource" | "template" | "instructions" | "skill";

export const TEXT_PARTS: Record<TextKind, Parts> = {
  prompt: [["title", "title"], ["description", "description"], ["arguments", "arguments"]],
  resource: [["name", "name"], ["title", "title"], ["description", "description"]],
  template: [["name", "name"], ["title", "title"], ["description", "description"]],
  instructions: [["text", "text"]],
  skill: [["frontmatter", "frontmatter"], ["files", "files"]],
};

/** What a skill's pin keeps of its files: "<digest> <size>" by URI, or "dynamic" (nothing to verify). */
export function skillFiles(
  resources: readonly { uri: string; digest: string; size: number }[] | "dynamic",
): Record<string, string> | "dynamic" {
  if (resources === "dynamic") return "dynamic";
  return Object.fromEntries(resources.map((file) => [file.uri, `${file.digest} ${file.size}`]));
}

/** How a text is keyed among a server's texts: "prompt:NAME", "resource:URI", "template:URI-TEMPLATE", "skill:URI", "instructions". */
export function textKey(kind: string, key?: string): string {
  return key === undefined ? kind : `${kind}:${key}`;
}

/** The words a message uses for a kind of text. */
export const KIND_WORDS: Record<TextKind, string> = {
  prompt: "prompt",
  resource: "resource",
  template: "resource template",
  instructions: "instructions",
  skill: "skill",
};

/** The pin of something listed now, from its key (name or URI) and parts. */
export function pinParts(key: string, value: Record<string, unknown>, parts: Parts): Pin {
  const kept: Record<string, unknown> = {};
  for (const [part] of parts) if (value[part] !== undefined) kept[part] = sortKeys(value[part]);
  // canonicalJson({ name: key, ...kept }) without sorting the parts a second time: they are sorted
  // already, only the top level is left (issue 42: every cached tool is fingerprinted at start-up).
  const whole: Record<string, unknown> = { name: key, ...kept };
  const top = Object.fromEntries(Object.keys(whole).sort().map((name) => [name, whole[name]]));
  return { sha256: sha256Hex(JSON.stringify(top)), ...kept };
}

/** Marks a tool's pin made since titles are pinned (not part of the fingerprint). */
const TITLED = 2;

/** The pin of a tool as it is listed now. */
export function pinOf(tool: Tool): Pin {
  return { ...pinParts(tool.name, tool as unknown as Record<string, unknown>, PINNED_PARTS), v: TITLED };
}

/**
 * A pin made before titles were pinned still stands for a tool that matches it without its title
 * (its title is then pinned as at a first sight); a pin made since says so with `v: 2`.
 */
export function legacyMatch(pin: Pin, tool: Tool): boolean {
  if (pin.v === TITLED || tool.title === undefined) return false;
  const { title: _, ...rest } = tool;
  return pinOf(rest as Tool).sha256 === pin.sha256;
}

/**
 * What differs between a pin and the text now, in a message's words ("description", "input
 * schema"); empty when the fingerprints agree. A pin whose parts were edited by hand still differs
 * by its fingerprint, which is what counts.
 */
export function changedParts(pin: Pin, now: Pin, parts: Parts = PINNED_PARTS): string[] {
  if (pin.sha256 === now.sha256) return [];
  const changed = parts.filter(([key]) => canonicalJson(pin[key]) !== canonicalJson(now[key])).map(([, words]) => words);
  return changed.length > 0 ? changed : ["fingerprint"];
}
