/** Composition root: the one place that picks the runtime's platform and hands it to the core. */
// Only this is imported statically: zod is configured before the SDK builds its schemas (zod-config.ts).
// The executable's bundle is split into chunks, and an entry's own code runs after every chunk it
// imports statically: configured in a line here, zod would be configured after the SDK's schemas.
import "./protocol/zod-config.ts";

const { platform } = await import("#platform");

try {
  const [{ run }, { useRuntimeSha256 }] = await Promise.all([import("./cli/run.ts"), import("./cache/sha256.ts")]);
  useRuntimeSha256(platform.sha256Hex);
  platform.exit(await run(platform));
} catch (error) {
  platform.writeStderr(`mcp-workbench: ${error instanceof Error ? error.stack ?? error.message : error}\n`);
  platform.exit(1);
}
