import { test } from "node:test";
import assert from "node:assert/strict";
import { childEnvironment, withheldHint } from "../../../src/downstream/links/child-env.ts";

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

test("child env: proxy, CA, locale and temp variables reach servers by default, on every system", () => {
  const network = {
    HTTPS_PROXY: "http://proxy:3128", http_proxy: "http://proxy:3128", NO_PROXY: "localhost", no_proxy: "127.0.0.1",
    NODE_EXTRA_CA_CERTS: "/etc/corp.pem", SSL_CERT_FILE: "/etc/ca.pem", LANG: "de_DE.UTF-8", LC_ALL: "de_DE.UTF-8",
    LC_CTYPE: "C.UTF-8", TMPDIR: "/var/tmp/me", TZ: "Europe/Berlin",
  };
  assert.deepEqual(childEnvironment({ ...ours, ...network }, {}), { HOME: "/home/me", PATH: "/usr/bin", USER: "me", SHELL: "/bin/bash", ...network });
  assert.deepEqual(childEnvironment({ ...network, SECRET: "x" }, {}, true), network);
  assert.equal(childEnvironment({ LC_EVIL: "() { x; }", LCX: "1" }, {}).LC_EVIL, undefined);
  assert.equal(childEnvironment({ LC_EVIL: "() { x; }", LCX: "1" }, {}).LCX, undefined);
});

test("child env: a variable a failed server names, which we have and did not pass, is said with how to pass it", () => {
  const given = childEnvironment(ours, {});
  assert.equal(
    withheldHint(["ERROR", "API_TOKEN", "HOME", "MISSING_VAR", "API_TOKEN"], ours, given),
    `; it names 'API_TOKEN', which the workbench has but does not pass to servers: add "env": {"API_TOKEN": "\${API_TOKEN}"} to the server, or "inheritEnv": true`,
  );
  assert.equal(withheldHint(["HOME", "PATH", "NOT_OURS"], ours, given), "");
});
