/**
 * What a server offers besides tools, listed when it connects: its prompts, resources and resource
 * templates, each only if its initialize result declares the capability (an empty list otherwise),
 * and its skills (`skills/list`, paged) when it declares the Skills extension.
 */
import {
  type Client,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ListToolsResultSchema,
  type Prompt,
  type Resource,
  type ResourceTemplate,
  ResultSchema,
  type Tool,
} from "../protocol/sdk.ts";
import { checkSkillEntry, type SkillEntry, skillsDeclaration } from "../protocol/skills.ts";

/** Guards against a server whose nextCursor never ends. */
const MAX_PAGES = 1_000;

export interface ServerListing {
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  /** Present when the server declares the Skills extension. */
  skills?: ServerSkills;
  /** The extensions the server declared (their names): only those are given to it (see toolboxes/pool.ts). */
  extensions?: string[];
}

/** A server's skills: the entries it listed, and those refused (malformed or over the limits). */
export interface ServerSkills {
  directoryRead: boolean;
  entries: SkillEntry[];
  refused: { uri: string; reason: string }[];
}

/** Guards against a server whose skills/list never ends: the skills of more pages are not offered. */
export const MAX_SKILL_PAGES = 100;

export const EMPTY_LISTING: ServerListing = { prompts: [], resources: [], resourceTemplates: [] };

/**
 * The resources of one server that are offered: the first this many it lists. Each is pinned at
 * first sight and compared at each open (toolboxes/offer.ts): a server listing 60,000 made a 10 MB
 * lock and an open_toolbox of seconds. Its other resources are read only by a URI one of its
 * templates matches, or a tool of it returned.
 */
export const MAX_LISTED_RESOURCES = 512;

function firstResources(resources: Resource[], log: (text: string) => void): Resource[] {
  if (resources.length <= MAX_LISTED_RESOURCES) return resources;
  log(`resources/list gave more than ${MAX_LISTED_RESOURCES} resources: the later ones are not offered`);
  return resources.slice(0, MAX_LISTED_RESOURCES);
}

/** Lists what the server declares; a list the server fails to give is empty, with a log line. */
export async function listServerListing(client: Client, timeout: number, log: (text: string) => void): Promise<ServerListing> {
  const capabilities = client.getServerCapabilities() ?? {};
  const list = async <T>(method: string, key: string, schema: Parameters<Client["request"]>[1], enough?: number): Promise<T[]> => {
    try {
      return await listAll<T>(client, method, key, schema, timeout, enough);
    } catch (error) {
      log(`${method} failed: ${error instanceof Error ? error.message : String(error)}`);
      return [];
    }
  };
  const [prompts, resources, resourceTemplates] = await Promise.all([
    capabilities.prompts ? list<Prompt>("prompts/list", "prompts", ListPromptsResultSchema) : [],
    capabilities.resources
      ? list<Resource>("resources/list", "resources", ListResourcesResultSchema, MAX_LISTED_RESOURCES).then((all) =>
        firstResources(all, log)
      )
      : [],
    capabilities.resources
      ? list<ResourceTemplate>("resources/templates/list", "resourceTemplates", ListResourceTemplatesResultSchema)
      : [],
  ]);
  const declared = skillsDeclaration(capabilities);
  const named = (capabilities as { extensions?: unknown }).extensions;
  const extensions = typeof named === "object" && named !== null ? Object.keys(named) : [];
  if (!declared) return { prompts, resources, resourceTemplates, extensions };
  return { prompts, resources, resourceTemplates, extensions, skills: await listSkills(client, declared.directoryRead, timeout, log) };
}

/** The server's skills, page by page (at most MAX_SKILL_PAGES); a failed listing is empty, with a log line. */
export async function listSkills(
  client: Client,
  directoryRead: boolean,
  timeout: number,
  log: (text: string) => void,
): Promise<ServerSkills> {
  const skills: ServerSkills = { directoryRead, entries: [], refused: [] };
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_SKILL_PAGES; page++) {
      const params = cursor === undefined ? {} : { cursor };
      const result = await client.request({ method: "skills/list", params }, ResultSchema, { timeout }) as Record<string, unknown>;
      for (const value of Array.isArray(result.skills) ? result.skills : []) {
        const checked = checkSkillEntry(value);
        if ("entry" in checked) skills.entries.push(checked.entry);
        else {
          skills.refused.push(checked);
          log(`${checked.reason}: not offered`);
        }
      }
      cursor = typeof result.nextCursor === "string" ? result.nextCursor : undefined;
      if (cursor === undefined) return skills;
    }
    log(`skills/list gave more than ${MAX_SKILL_PAGES} pages: the skills of later pages are not offered`);
  } catch (error) {
    log(`skills/list failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return skills;
}

/** Every page up to MAX_PAGES, or until more than `enough` items came. */
async function listAll<T>(
  client: Client,
  method: string,
  key: string,
  schema: Parameters<Client["request"]>[1],
  timeout: number,
  enough = Infinity,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES && items.length <= enough; page++) {
    const params = cursor === undefined ? {} : { cursor };
    const result = await client.request({ method, params }, schema, { timeout }) as Record<string, unknown>;
    items.push(...(result[key] as T[]));
    cursor = result.nextCursor as string | undefined;
    if (cursor === undefined) break;
  }
  return items;
}

/**
 * Every tool the server lists, page by page. By request(), not listTools(), which would compile a
 * validator for every outputSchema: never used (calls take the lane), and a schema the validator
 * rejects would fail the whole server.
 */
export async function listTools(client: Client, timeout: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const params = cursor === undefined ? {} : { cursor };
    const result = await client.request({ method: "tools/list", params }, ListToolsResultSchema, { timeout });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}
