/** One step into the configuration: an object key or an array index. */
export type PathSegment = string | number;

// Keys made of these characters cannot be confused with path syntax.
const BARE_KEY = /^[A-Za-z0-9_$-]+$/;

/**
 * Writes a location as `toolboxes.dev.mcpServers.fs.args[0]`; keys with any
 * other character (dots, spaces, quotes, empty) are quoted: `toolboxes["my.box"]`.
 */
export function formatPath(path: readonly PathSegment[]): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else if (BARE_KEY.test(segment)) text += text === "" ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}
