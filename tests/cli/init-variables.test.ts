/** The editors' variables in imported server entries, translated into the configuration's own. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { inputsOf, type VariableContext, VariableTranslator } from "../../src/cli/init-variables.ts";

const context: VariableContext = {
  home: "/home/me",
  workspace: "/home/me/code/my-app",
  separator: "/",
  inputs: new Map([["api-key", { description: "API Key" }], ["region", { default: "eu" }], ["odd", { default: "a}b" }]]),
};

test("init variables: VS Code's and Cursor's forms become paths or ${NAME}; ours and Claude Code's stay", () => {
  const translator = new VariableTranslator(context);
  const entry = {
    command: "${userHome}/bin/server",
    args: ["--root", "${workspaceFolder}", "--name=${workspaceFolderBasename}", "a${/}b${pathSeparator}c", "${HOME}", "${PORT:-8080}", 3],
    env: { KEY: "${env:MY_KEY}", API: "Bearer ${input:api-key}", REGION: "${input:region}", ODD: "${input:odd}", PLAIN: "$HOME and ${" },
    cwd: "${workspaceFolder}",
    url: "https://${env:HOST}/mcp",
    headers: { Authorization: "Bearer ${input:api-key}" },
    type: "${userHome}",
  };
  assert.deepEqual(translator.server("s", entry), {
    command: "/home/me/bin/server",
    args: ["--root", "/home/me/code/my-app", "--name=my-app", "a/b/c", "${HOME}", "${PORT:-8080}", 3],
    env: { KEY: "${MY_KEY}", API: "Bearer ${API_KEY}", REGION: "${REGION:-eu}", ODD: "${ODD}", PLAIN: "$HOME and ${" },
    cwd: "/home/me/code/my-app",
    url: "https://${HOST}/mcp",
    headers: { Authorization: "Bearer ${API_KEY}" },
    type: "${userHome}",
  });
  assert.deepEqual(translator.problems, []);
  assert.deepEqual(translator.inputs, [
    { id: "api-key", name: "API_KEY", description: "API Key", servers: ["s"] },
    { id: "region", name: "REGION", description: undefined, servers: ["s"] },
    { id: "odd", name: "ODD", description: undefined, servers: ["s"] },
  ]);
});

test("init variables: input ids become clear, distinct names; Windows paths and separators", () => {
  const translator = new VariableTranslator({ ...context, home: "C:\\Users\\me", workspace: "C:\\work\\app\\", separator: "\\" });
  const server = translator.server("a", {
    args: ["${input:api-key}", "${input:api_key}", "${input:1st.token}", "${input:--}", "${input:api-key}", "${userHome}${/}x", "${workspaceFolderBasename}"],
  });
  assert.deepEqual(server.args, ["${API_KEY}", "${API_KEY_2}", "${INPUT_1ST_TOKEN}", "${INPUT_}", "${API_KEY}", "C:\\Users\\me\\x", "app"]);
  translator.server("b", { env: { K: "${input:api-key}" } });
  assert.deepEqual(translator.inputs.map(({ name, servers }) => [name, servers]), [
    ["API_KEY", ["a", "b"]],
    ["API_KEY_2", ["a"]],
    ["INPUT_1ST_TOKEN", ["a"]],
    ["INPUT_", ["a"]],
  ]);
});

test("init variables: what has no value outside the editor is a problem naming the server and field", () => {
  const translator = new VariableTranslator(context);
  translator.server("pick", {
    command: "${execPath}",
    args: ["${command:pickFolder}", "${config:python.path}", "${workspaceFolder:api}", "${file}", "${}"],
    env: { "MY.KEY": "${env:MY-KEY}", CWD: "${cwd}" },
    headers: { X: "${selectedText}" },
  });
  assert.deepEqual(translator.problems, [
    "Server 'pick' uses ${execPath} at command: it has no value outside the editor",
    "Server 'pick' uses ${command:pickFolder} at args[0]: it has no value outside the editor",
    "Server 'pick' uses ${config:python.path} at args[1]: it has no value outside the editor",
    "Server 'pick' uses ${workspaceFolder:api} at args[2]: it has no value outside the editor",
    "Server 'pick' uses ${file} at args[3]: it has no value outside the editor",
    "Server 'pick' uses ${} at args[4]: it has no value outside the editor",
    'Server \'pick\' uses ${env:MY-KEY} at env["MY.KEY"]: it has no value outside the editor',
    "Server 'pick' uses ${cwd} at env.CWD: it has no value outside the editor",
    "Server 'pick' uses ${selectedText} at headers.X: it has no value outside the editor",
  ]);
});

test("init variables: VS Code's inputs array by id; a password's default is not kept", () => {
  const inputs = inputsOf({
    inputs: [
      { type: "promptString", id: "key", description: "Key", password: true, default: "secret" },
      { type: "pickString", id: "region", options: ["eu", "us"], default: "us" },
      { id: 3 },
      "junk",
    ],
  });
  assert.deepEqual([...inputs], [
    ["key", { description: "Key", default: undefined, definition: { type: "promptString", id: "key", description: "Key", password: true } }],
    ["region", { description: undefined, default: "us", definition: { type: "pickString", id: "region", options: ["eu", "us"], default: "us" } }],
  ]);
  assert.equal(inputsOf({ inputs: {} }).size, 0);
});
