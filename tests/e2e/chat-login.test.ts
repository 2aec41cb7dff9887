/**
 * A login inside the chat: a remote server that needs OAuth, served to a client that declared
 * URL-mode elicitation, is logged in by the client opening the authorization URL (here: fetch
 * following the redirects, as a browser would); the open_toolbox that needed it goes on. A client
 * that declines, or that has no URL mode, gets the usual error naming the terminal command.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { Client, ElicitationCompleteNotificationSchema, ElicitRequestSchema } from "../helpers/sdk.ts";
import { eventually, okText, opened, openToolbox, useTool } from "../helpers/toolbox.ts";
import { removeTempDirs, startWorkbench, tempDir } from "../helpers/workbench.ts";
import { startHttpFixture } from "../helpers/http-fixture.ts";

after(removeTempDirs);

/** A client in front that declares URL elicitation and answers each login request with `action`. */
function clientThat(action: "accept" | "decline", asked: Record<string, unknown>[], completed: string[]): Client {
  const client = new Client({ name: "chat", version: "1.0.0" }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params);
    // The user opens the page; the fixture's authorization server redirects back at once.
    if (action === "accept" && request.params.mode === "url") void fetch(request.params.url).then((response) => response.text()).catch(() => {});
    return { action };
  });
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
    completed.push(notification.params.elicitationId);
  });
  return client;
}

async function withFixture(fn: (config: unknown, env: Record<string, string>, stats: () => Promise<{ registrations: number }>) => Promise<void>) {
  const fixture = await startHttpFixture({ FIXTURE_OAUTH: "1" });
  try {
    const config = { toolboxes: { dev: { mcpServers: { linear: { url: fixture.url("/mcp") } } } } };
    const stats = async () => await (await fetch(fixture.url("/oauth-stats"))).json() as { registrations: number };
    await fn(config, { WORKBENCH_AUTH_DIR: `${tempDir()}/auth` }, stats);
  } finally {
    await fixture.stop();
  }
}

test("chat login: a client with URL elicitation opens the login page; open_toolbox goes on logged in and the login is kept", async () => {
  await withFixture(async (config, env, stats) => {
    const asked: Record<string, unknown>[] = [];
    const completed: string[] = [];
    const session = await startWorkbench(config, env, clientThat("accept", asked, completed));
    try {
      const value = opened(await openToolbox(session, "dev"));
      assert.equal(value.servers_connected, 1, JSON.stringify(value._errors));
      assert.equal(okText(await useTool(session, "dev", "linear", "echo", { text: "in" })), "remote: in");
      assert.equal(asked.length, 1);
      const [question] = asked;
      assert.equal(question.mode, "url");
      assert.equal(question.message, "Log in to server 'linear' (toolbox 'dev') so that MCP Workbench can use it");
      assert.match(String(question.url), /^http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
      await eventually("the elicitation said complete", () => completed, (ids) => ids.length === 1);
      assert.equal(completed[0], question.elicitationId);
      assert.equal((await stats()).registrations, 1);
    } finally {
      await session.close();
    }
    // The tokens were stored: the next session uses them without asking.
    const again: Record<string, unknown>[] = [];
    const next = await startWorkbench(config, env, clientThat("accept", again, []));
    try {
      assert.equal(opened(await openToolbox(next, "dev")).servers_connected, 1);
      assert.equal(again.length, 0, "no second login");
    } finally {
      await next.close();
    }
  });
});

test("chat login: a user who declines, and a client without URL elicitation, get the error naming the terminal command", async () => {
  await withFixture(async (config, env) => {
    const asked: Record<string, unknown>[] = [];
    const session = await startWorkbench(config, env, clientThat("decline", asked, []));
    try {
      const refused = await openToolbox(session, "dev");
      assert.equal(refused.isError, true);
      assert.match(JSON.stringify(refused.content), /login required: run \\"mcp-workbench auth dev linear --config /);
      assert.equal(asked.length, 1);
    } finally {
      await session.close();
    }
    const plain = await startWorkbench(config, env);
    try {
      assert.match(JSON.stringify((await openToolbox(plain, "dev")).content), /login required: run \\"mcp-workbench auth dev linear/);
    } finally {
      await plain.close();
    }
  });
});
