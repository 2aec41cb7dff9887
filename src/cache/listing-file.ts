/**
 * A listing cache file's format (see listing-cache.ts): what it holds, and the check of what is
 * read back, from a disk or from a store shared by replicas: anything but a well-formed file of
 * this format is a miss.
 */
import type { Tool } from "../protocol/sdk.ts";
import type { ServerListing, ServerSkills } from "../downstream/listing.ts";
import { checkSkillEntry } from "../protocol/skills.ts";

/** Bumped when the file format changes: older files then miss. */
export const FORMAT = 1;

export interface CacheFile extends Partial<ServerListing> {
  format: number;
  /** The last list. */
  tools: Tool[];
  /** The capability key (capabilityKey) the last list was made for; absent in files from before. */
  listedFor?: string;
  /** Earlier lists made for other capabilities, by capability key. */
  others?: Record<string, Tool[]>;
}

/** What a file holds: the tools, and the rest when the file has it. */
export interface CacheEntry {
  /** The last list, whoever it was made for. */
  tools: Tool[];
  listing?: ServerListing;
  /** The lists known by the capabilities they were made for (capabilityKey); the last one included. */
  lists: Record<string, Tool[]>;
}

/** What a well-formed file of this format holds; anything else is a miss. */
export function parseCacheFile(text: string): CacheEntry | undefined {
  try {
    const value = JSON.parse(text) as Partial<CacheFile> | null;
    if (value?.format !== FORMAT || !isToolList(value.tools)) return undefined;
    const { prompts, resources, resourceTemplates, skills, listedFor, others } = value;
    const whole = Array.isArray(prompts) && prompts.every((prompt) => typeof prompt?.name === "string") &&
      Array.isArray(resources) && resources.every((resource) => typeof resource?.uri === "string") &&
      Array.isArray(resourceTemplates) && resourceTemplates.every((template) => typeof template?.uriTemplate === "string");
    const lists: Record<string, Tool[]> = {};
    for (const [key, tools] of Object.entries(others ?? {})) if (isToolList(tools)) lists[key] = tools;
    if (typeof listedFor === "string") lists[listedFor] = value.tools;
    if (!whole) return { tools: value.tools, lists };
    return { tools: value.tools, lists, listing: { prompts, resources, resourceTemplates, ...(isSkills(skills) && { skills }) } };
  } catch {
    return undefined;
  }
}

/** A server's skills as remembered: each entry checked again as a server's would be. */
const isSkills = (value: unknown): value is ServerSkills => {
  const skills = value as Partial<ServerSkills> | undefined;
  return typeof skills?.directoryRead === "boolean" && Array.isArray(skills.refused) &&
    Array.isArray(skills.entries) && skills.entries.every((entry) => "entry" in checkSkillEntry(entry));
};

const isToolList = (value: unknown): value is Tool[] =>
  Array.isArray(value) && value.every((tool) => typeof tool?.name === "string");
