import type { WorkbenchConfig } from "../config/index.ts";

/** The tail of a "not found" message: what the user could have asked for instead. */
export function availableToolboxes(config: WorkbenchConfig): string {
  const names = Object.keys(config.toolboxes);
  if (names.length === 0) return "no toolboxes are configured";
  return `available toolboxes: ${names.map((name) => `'${name}'`).join(", ")}`;
}
