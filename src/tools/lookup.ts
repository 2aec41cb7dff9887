/** The ends of the meta-tools' "not found" messages: what there is, and the closest names. */
import type { WorkbenchConfig } from "../config/index.ts";
import { didYouMean } from "../config/suggest.ts";

/** The tail of a "not found" message: what the user could have asked for instead. */
export function availableToolboxes(config: WorkbenchConfig): string {
  const names = Object.keys(config.toolboxes);
  if (names.length === 0) return "no toolboxes are configured";
  return `available toolboxes: ${names.map((name) => `'${name}'`).join(", ")}`;
}

/** ". Did you mean 'dev'?" for a toolbox name that is not configured; empty when none is close. */
export function closestToolbox(config: WorkbenchConfig, name: string): string {
  return didYouMean(name, Object.keys(config.toolboxes));
}

/**
 * "Toolbox 'x' not found in configuration; available toolboxes: …. Did you mean …?" for every command;
 * a command names the file it read (`file`): the user may have meant another.
 */
export function toolboxNotFound(config: WorkbenchConfig, name: string, file?: string): string {
  const where = file === undefined ? "configuration" : `configuration '${file}'`;
  return `Toolbox '${name}' not found in ${where}; ${availableToolboxes(config)}${closestToolbox(config, name)}`;
}

/** Longest toolbox list in open_toolbox's description, in characters, before "and N more". */
const MAX_LISTING = 800;

/**
 * `Toolboxes: dev (Files and notes), docs.` for open_toolbox's description: not every client shows
 * the initialize instructions to the model, and the tool list alone must be enough to pick one.
 */
export function toolboxListing(config: WorkbenchConfig, maxChars = MAX_LISTING): string {
  const items = Object.entries(config.toolboxes).map(([name, toolbox]) =>
    toolbox.description ? `${name} (${toolbox.description})` : name
  );
  if (items.length === 0) return "No toolboxes are configured.";
  let text = "";
  let shown = 0;
  for (const item of items) {
    const next = shown === 0 ? cut(item, maxChars) : `${text}, ${item}`;
    if (shown > 0 && next.length > maxChars) break;
    text = next;
    shown++;
  }
  const rest = items.length - shown;
  return `Toolboxes: ${text}${rest > 0 ? ` and ${rest} more` : ""}.`;
}

const cut = (text: string, max: number) => text.length <= max ? text : `${text.slice(0, max - 1)}…`;
