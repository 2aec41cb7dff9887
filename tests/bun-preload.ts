/**
 * Bun only (bunfig.toml preloads it; Deno has no default test timeout). Bun's default of 5 s per
 * test is too short for tests that start real processes on a loaded machine, and Bun 1.4 reads no
 * timeout from bunfig.toml: setDefaultTimeout() is the way, but it applies to one file only, so
 * each test file gets the call prepended, on its first line so that line numbers stay right.
 * Plain `bun test` thus gets the same timeout as `npm test`. The call wins over `--timeout` (Bun
 * gives a preload no way to see the flag): change TEST_TIMEOUT_MS instead.
 */
import { plugin } from "bun";

export const TEST_TIMEOUT_MS = 60_000;

plugin({
  name: "default test timeout",
  setup(build) {
    build.onLoad({ filter: /\.test\.ts$/ }, async ({ path }) => ({
      contents: `import { setDefaultTimeout as __setDefaultTimeout } from "bun:test"; __setDefaultTimeout(${TEST_TIMEOUT_MS}); ` +
        await Bun.file(path).text(),
      loader: "ts",
    }));
  },
});
