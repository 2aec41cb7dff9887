/** `mcp-workbench schema`: the JSON Schema of the configuration file, generated from the validator. */
import type { Platform } from "../platform/types.ts";
import { configJsonSchema } from "../config/json-schema.ts";
import { writeStdout } from "./common.ts";

export async function runSchema(platform: Platform): Promise<number> {
  await writeStdout(platform, `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
  return 0;
}
