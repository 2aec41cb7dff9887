/** The configuration file as approve's hints name it: the per-user file needs no --config, any other does. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { configToName, userConfigFile } from "../../src/config/user-file.ts";

test("hints: the per-user file is the default one; a project file, an --out file or a file with no HOME to compare are named", () => {
  const env = { HOME: "/home/me" };
  const user = userConfigFile({ os: "linux", home: "/home/me", cwd: "/p", env });
  assert.equal(user, "/home/me/.config/mcp-workbench/workbench-config.json");
  assert.equal(configToName(user, env, "linux", "/p"), undefined);
  assert.equal(configToName("/p/workbench-config.shop.json", env, "linux", "/p"), "/p/workbench-config.shop.json");
  assert.equal(configToName("/p/workbench-config.json", env, "linux", "/p"), "/p/workbench-config.json");
  assert.equal(configToName(user, {}, "linux", "/p"), user);
});
