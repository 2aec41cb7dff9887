/** Imported, not read at run time, so a compiled executable carries its own version. */
import pkg from "../../package.json" with { type: "json" };

export const NAME = "mcp-workbench";
export const VERSION: string = pkg.version;
