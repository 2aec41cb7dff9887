/**
 * A session's view of the configuration: only the toolboxes its client was granted. Everything a
 * session offers is made from its view (instructions, open_toolbox's description and answers,
 * use_tool, prompts, resources, completions), so a toolbox it may not use is one that does not
 * exist: the same answer, the same "did you mean" among its own toolboxes only.
 */
import type { WorkbenchConfig } from "../../config/index.ts";

/** The configuration as a client granted `toolboxes` sees it; the same object for "*". */
export function grantedView(config: WorkbenchConfig, client: { readonly toolboxes: "*" | readonly string[] }): WorkbenchConfig {
  const granted = client.toolboxes;
  if (granted === "*") return config;
  const toolboxes = Object.entries(config.toolboxes).filter(([name]) => granted.includes(name));
  return { ...config, toolboxes: Object.fromEntries(toolboxes) };
}
