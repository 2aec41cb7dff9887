/**
 * What a server offers besides tools, listed when it connects: its prompts, resources and resource
 * templates, each only if its initialize result declares the capability (an empty list otherwise).
 */
import {
  type Client,
  ListToolsResultSchema,
  type Tool,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  type Prompt,
  type Resource,
  type ResourceTemplate,
} from "../protocol/sdk.ts";

/** Guards against a server whose nextCursor never ends. */
const MAX_PAGES = 1_000;

export interface ServerListing {
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
}

export const EMPTY_LISTING: ServerListing = { prompts: [], resources: [], resourceTemplates: [] };

/** Lists what the server declares; a list the server fails to give is empty, with a log line. */
export async function listServerListing(client: Client, timeout: number, log: (text: string) => void): Promise<ServerListing> {
  const capabilities = client.getServerCapabilities() ?? {};
  const list = async <T>(method: string, key: string, schema: Parameters<Client["request"]>[1]): Promise<T[]> => {
    try {
      return await listAll<T>(client, method, key, schema, timeout);
    } catch (error) {
      log(`${method} failed: ${error instanceof Error ? error.message : String(error)}`);
      return [];
    }
  };
  const [prompts, resources, resourceTemplates] = await Promise.all([
    capabilities.prompts ? list<Prompt>("prompts/list", "prompts", ListPromptsResultSchema) : [],
    capabilities.resources ? list<Resource>("resources/list", "resources", ListResourcesResultSchema) : [],
    capabilities.resources
      ? list<ResourceTemplate>("resources/templates/list", "resourceTemplates", ListResourceTemplatesResultSchema)
      : [],
  ]);
  return { prompts, resources, resourceTemplates };
}

async function listAll<T>(
  client: Client,
  method: string,
  key: string,
  schema: Parameters<Client["request"]>[1],
  timeout: number,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
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
