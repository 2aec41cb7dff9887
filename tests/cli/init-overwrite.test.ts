/** init never overwrites a file without --force, without a whole process around it. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { runInit } from "../../src/cli/init.ts";
import { capturedPlatform } from "../helpers/captured-platform.ts";
import { tempDir } from "../helpers/workbench.ts";

test("init: an existing file is left as it is (exit 1, says --force); --force overwrites it (exit 0)", async () => {
  const dir = tempDir();
  try {
    const out = `${dir}/workbench-config.json`;
    const init = async (options: Record<string, string | true>) => {
      const { fake, out: written } = capturedPlatform({ env: { HOME: dir }, cwd: dir });
      return { code: await runInit(fake, { options: { "--out": out, ...options }, positionals: [] }), ...written };
    };

    const first = await init({});
    assert.equal(first.code, 0, first.stderr);
    const starter = readFileSync(out, "utf8");
    assert.ok(JSON.parse(starter).toolboxes, starter);

    writeFileSync(out, "mine\n");
    const again = await init({});
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `mcp-workbench: File exists: '${out}' (it is left as it is; use --merge to add the new servers to it, or --force to overwrite it)\n`);
    assert.equal(again.stdout, "");
    assert.equal(readFileSync(out, "utf8"), "mine\n");

    const forced = await init({ "--force": true });
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(readFileSync(out, "utf8"), starter);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
