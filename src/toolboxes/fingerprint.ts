/**
 * A tool's fingerprint, for pinning: the SHA-256 of a canonical JSON (keys sorted, no spaces) of
 * what a model reads of it and what a call depends on: name, description, input and output schema
 * and annotations. The pin keeps those parts too, so that an approval can show the old text and a
 * refusal can say which part changed.
 */
import type { Tool } from "../protocol/sdk.ts";
import { sha256Hex } from "../cache/sha256.ts";
import { canonicalJson, sortKeys } from "../cache/canonical-json.ts";

export { canonicalJson };

/** What the lock file keeps of one tool: its fingerprint and the parts it was made of. */
export interface Pin {
  sha256: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

/** The parts a fingerprint covers besides the name, with the words a message uses for each. */
export const PINNED_PARTS = [
  ["description", "description"],
  ["inputSchema", "input schema"],
  ["outputSchema", "output schema"],
  ["annotations", "annotations"],
] as const;

/** The pin of a tool as it is listed now. */
export function pinOf(tool: Tool): Pin {
  const parts: Record<string, unknown> = {};
  for (const [key] of PINNED_PARTS) if (tool[key] !== undefined) parts[key] = sortKeys(tool[key]);
  return { sha256: sha256Hex(canonicalJson({ name: tool.name, ...parts })), ...parts };
}

/**
 * What differs between a pin and the tool now, in a message's words ("description", "input
 * schema"); empty when the fingerprints agree. A pin whose parts were edited by hand still differs
 * by its fingerprint, which is what counts.
 */
export function changedParts(pin: Pin, now: Pin): string[] {
  if (pin.sha256 === now.sha256) return [];
  const changed = PINNED_PARTS.filter(([key]) => canonicalJson(pin[key]) !== canonicalJson(now[key])).map(([, words]) => words);
  return changed.length > 0 ? changed : ["fingerprint"];
}
