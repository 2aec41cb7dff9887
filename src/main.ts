/** Composition root: the one place that picks the runtime's platform and hands it to the core. */
// First: it configures zod before the SDK builds its schemas.
import "./protocol/zod-config.ts";
import { platform } from "#platform";
import { run } from "./cli/run.ts";
import { useRuntimeSha256 } from "./cache/sha256.ts";

useRuntimeSha256(platform.sha256Hex);

try {
  platform.exit(await run(platform));
} catch (error) {
  platform.writeStderr(`mcp-workbench: ${error instanceof Error ? error.stack ?? error.message : error}\n`);
  platform.exit(1);
}
