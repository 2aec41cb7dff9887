/**
 * The names the workbench gives downstream prompts: `toolbox__server__prompt`. Clients show prompt
 * names as commands (Claude Code: `/mcp__workbench__dev__github__summarize_pr`; VS Code:
 * `/mcp.workbench.dev__github__summarize_pr`), so a name keeps to letters, digits, `_` and `-`,
 * and the double underscore is the separator Claude Code itself uses between server and prompt.
 * Any other character becomes `_`; a name over 64 characters is cut and ends in a short hash of
 * where it comes from; a name taken already (only after such changes) gets `_2`, `_3`...
 */
import { sha256Hex } from "../../cache/sha256.ts";

export const SEPARATOR = "__";
export const MAX_PROMPT_NAME = 64;
const HASH_CHARS = 8;

export interface PromptOrigin {
  toolbox: string;
  server: string;
  /** The prompt's name on its server. */
  prompt: string;
}

/** The name of one prompt, before collisions are settled. */
export function promptName({ toolbox, server, prompt }: PromptOrigin): string {
  const name = [toolbox, server, prompt].map(safe).join(SEPARATOR);
  if (name.length <= MAX_PROMPT_NAME) return name;
  const hash = sha256Hex(JSON.stringify([toolbox, server, prompt])).slice(0, HASH_CHARS);
  return `${name.slice(0, MAX_PROMPT_NAME - HASH_CHARS - 1)}_${hash}`;
}

/**
 * Names for prompts given in configuration order: the first keeps its name, a later one that would
 * have the same name gets a suffix. The map goes from our name back to the origin.
 */
export function namePrompts<T extends PromptOrigin>(origins: T[]): Map<string, T> {
  const named = new Map<string, T>();
  for (const origin of origins) {
    const base = promptName(origin);
    let name = base;
    for (let n = 2; named.has(name); n++) name = `${base}_${n}`;
    named.set(name, origin);
  }
  return named;
}

const safe = (part: string) => part.replace(/[^A-Za-z0-9_-]/g, "_");
