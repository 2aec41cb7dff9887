/**
 * A server definition's secrets are masked in everything that comes back from that server (issue
 * 37 §7): a careless server (tests/fixtures/leaky-server.ts) says them in its instructions, a
 * tool's description, results (small and 1 MiB), a log message, a JSON-RPC error, an isError
 * result, a prompt and a resource. Over stdio the secret is an env value; remote, a header value
 * and a URL query value. The client, through the workbench, never sees one of them.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { Client, LoggingMessageNotificationSchema } from "../helpers/sdk.ts";
import { removeTempDirs, type Session, startWorkbench } from "../helpers/workbench.ts";
import { openToolbox, useTool } from "../helpers/toolbox.ts";
import { fixtureServer } from "../helpers/runtime.ts";
import { startLeakyHttp } from "../helpers/http-fixture.ts";

after(removeTempDirs);

const ENV_SECRET = "sk-env-5f1c0a9e7d3b2a";
const HEADER_SECRET = "hdr-7c2e91b04f6a";
const QUERY_SECRET = "qry-3b8d5e0a17c9";

/** Everything the client gets from the leaky server through the workbench, as one text, and the log messages. */
async function everything(session: Session, logs: unknown[]): Promise<string> {
  await session.client.setLoggingLevel("debug");
  const seen: unknown[] = [];
  seen.push(await openToolbox(session, "dev"));
  for (const tool of ["leak", "leak_big", "leak_error", "leak_failed"]) seen.push(await useTool(session, "dev", "leaky", tool, {}));
  // A client puts a result's text items side by side: the secret split across two must not come back joined.
  for (const tool of ["leak_split", "leak_split_big"]) {
    const result = await useTool(session, "dev", "leaky", tool, {}) as { content: { text?: string }[] };
    seen.push(`${tool}: ${result.content.map((item) => item.text ?? "").join("")}`);
  }
  const { prompts } = await session.client.listPrompts();
  seen.push(prompts);
  const prompt = prompts.find((one) => one.name.includes("leaky"));
  assert.ok(prompt, JSON.stringify(prompts));
  seen.push(await session.client.getPrompt({ name: prompt.name }));
  const { resources } = await session.client.listResources();
  seen.push(resources);
  seen.push(await session.client.readResource({ uri: "leak://note" }));
  // The log message was sent during the call: it has come by now, or comes at once.
  for (let i = 0; i < 50 && logs.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  seen.push(logs);
  return JSON.stringify(seen);
}

function loggingClient(logs: unknown[]): Client {
  const client = new Client({ name: "secrets-test", version: "1.0.0" });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params));
  return client;
}

/** What the masked texts look like: the server's words are there, its secrets are not. */
function assertMasked(text: string, masked: string, secrets: string[]): void {
  for (const secret of secrets) assert.ok(!text.includes(secret), `the secret ${secret} came back: ${text.slice(Math.max(0, text.indexOf(secret) - 200), text.indexOf(secret) + 100)}`);
  assert.ok(text.includes(`Always send ${masked} along.`), "instructions");
  assert.ok(text.includes(`Says ${masked}`), "a tool's description");
  assert.ok(text.includes(`the key is ${masked}`), "results, errors, prompts, resources");
  assert.ok(text.includes(`Prompt with ${masked}`) && text.includes(`Note of ${masked}`), "prompt and resource listings");
  assert.ok(text.includes(`${"x".repeat(1000)}the key is ${masked}`), "the 1 MiB result");
}

test("server secrets: a stdio server's env secret is masked in everything it sends back", async () => {
  const logs: unknown[] = [];
  const leaky = fixtureServer("leaky-server.ts", { env: { LEAK_SECRET: ENV_SECRET, LEAK_SETTING: "production-eu" } });
  const session = await startWorkbench({ maxResultTokens: 0, toolboxes: { dev: { mcpServers: { leaky } } } }, {}, loggingClient(logs));
  try {
    const text = await everything(session, logs);
    assertMasked(text, "***", [ENV_SECRET]);
    assert.ok(text.includes("the key is ***, in production-eu"), "a setting in its env that is no secret stays");
    assert.ok(JSON.stringify(logs).includes("the key is ***"), `the log message came, masked: ${JSON.stringify(logs)}`);
    assert.ok(!session.stderr().includes(ENV_SECRET));
  } finally {
    await session.close();
  }
});

test("server secrets: a remote server's header and URL query secrets are masked in everything it sends back", async () => {
  const remote = await startLeakyHttp();
  const logs: unknown[] = [];
  const leaky = { url: `${remote.url("/mcp")}?key=${QUERY_SECRET}`, headers: { "X-Api-Key": HEADER_SECRET } };
  const session = await startWorkbench({ maxResultTokens: 0, toolboxes: { dev: { mcpServers: { leaky } } } }, {}, loggingClient(logs));
  try {
    const text = await everything(session, logs);
    assertMasked(text, "*** and ***", [HEADER_SECRET, QUERY_SECRET]);
    assert.ok(JSON.stringify(logs).includes("the key is *** and ***"), `the log message came, masked: ${JSON.stringify(logs)}`);
    assert.ok(!session.stderr().includes(HEADER_SECRET) && !session.stderr().includes(QUERY_SECRET));
  } finally {
    await session.close();
    await remote.stop();
  }
});
