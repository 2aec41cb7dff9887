import { test } from "node:test";
import assert from "node:assert/strict";
import { childEnvironment } from "../../../src/downstream/links/child-env.ts";

const ours = {
  HOME: "/home/me",
  PATH: "/usr/bin",
  USER: "me",
  SHELL: "/bin/bash",
  API_TOKEN: "secret",
  BASH_FUNC_x: "() { evil; }",
  TERM: "() { evil; }",
};

test("child env: only the minimal set of ours, plus the server's own env, which wins", () => {
  assert.deepEqual(childEnvironment(ours, { EXTRA: "1", PATH: "/opt/bin" }), {
    HOME: "/home/me",
    PATH: "/opt/bin",
    USER: "me",
    SHELL: "/bin/bash",
    EXTRA: "1",
  });
});

test("child env: secrets and exported shell functions stay out", () => {
  const env = childEnvironment(ours, {});
  assert.equal(env.API_TOKEN, undefined);
  assert.equal(env.TERM, undefined, "a value starting with () is a function, not a terminal");
  assert.equal(env.BASH_FUNC_x, undefined);
});

test("child env: Windows passes its own essentials", () => {
  const windows = { APPDATA: "C:\\a", SYSTEMROOT: "C:\\Windows", PATH: "C:\\bin", HOME: "/ignored", SECRET: "x" };
  assert.deepEqual(childEnvironment(windows, {}, true), { APPDATA: "C:\\a", PATH: "C:\\bin", SYSTEMROOT: "C:\\Windows" });
});
