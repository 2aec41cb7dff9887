/**
 * The approval gate (src/tools/pipeline/approve.ts) with a client that answers in this process: an
 * approval covers the arguments the user was shown (a snapshot sent as it was shown, whatever the
 * caller's object becomes), arguments too long to show are not asked about, and "for this
 * session" covers the tool with any arguments.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { approveCall } from "../../../src/tools/pipeline/approve.ts";
import type { CallSession } from "../../../src/tools/pipeline/step.ts";
import type { Upstream } from "../../../src/protocol/upstream.ts";
import { argumentsDigest, StoredApprovals } from "../../../src/trust/approvals.ts";
import { validateConfig } from "../../../src/config/index.ts";
import { platform } from "#platform";
import { ToolboxRegistry } from "../../../src/toolboxes/registry.ts";
import { runToolCall } from "../../../src/tools/pipeline/pipeline.ts";
import { SessionOffer } from "../../../src/toolboxes/session-offer.ts";
import { removeTempDirs, tempDir } from "../../helpers/workbench.ts";
import { callsReached, trustConfig } from "../../helpers/trust.ts";

after(removeTempDirs);

import { MemoryStore } from "../../../src/store/memory-store.ts";

const memoryApprovals = () => new StoredApprovals(new MemoryStore(), "session", () => 60_000);
const id = { toolbox: "dev", server: "s", name: "rm" };
const tool = { name: "rm", inputSchema: { type: "object" as const } };

function serverConfig(extra: Record<string, unknown> = {}) {
  return validateConfig({ toolboxes: { dev: { mcpServers: { s: { command: "x", confirm: "all", ...extra } } } } }).toolboxes.dev.mcpServers.s;
}

/** A context whose client answers each question with `answer(params)`; the questions it got. */
function context(answer: (params: Record<string, unknown>) => Record<string, unknown>) {
  const asked: Record<string, unknown>[] = [];
  const upstream = {
    capabilities: { elicitation: { form: {} } },
    logLevel: undefined,
    request: async (_method: string, params: Record<string, unknown> | undefined) => {
      asked.push(params!);
      return answer(params!);
    },
    notify: async () => {},
    onLogLevel: () => () => {},
    onRootsChanged: () => () => {},
  } satisfies Upstream;
  const session = { upstream, approvals: memoryApprovals() } as unknown as CallSession;
  const ctx = (args: Record<string, unknown>) => ({ id, args, tool, session, request: { signal: new AbortController().signal } });
  return { ctx, session, asked };
}

test("call approval: what is sent is what was shown, even if the caller's arguments change while the user is asked", async () => {
  const args: Record<string, unknown> = { path: "/tmp/scratch" };
  const { ctx, asked } = context(() => {
    args.path = "/home/me"; // The caller's object changes behind the question.
    return { action: "accept" };
  });
  const approval = await approveCall(ctx(args), serverConfig());
  assert.equal(asked.length, 1);
  assert.ok(approval.approved);
  assert.deepEqual(approval.args, { path: "/tmp/scratch" });
  assert.match(String(asked[0].message), /"path": "\/tmp\/scratch"/);
  assert.ok(String(asked[0].message).includes(`(sha-256 ${argumentsDigest(approval.args)})`), "the digest shown is the one of the arguments sent");
});

test("call approval: arguments longer than confirmMaxChars are refused without a question", async () => {
  const { ctx, asked } = context(() => ({ action: "accept" }));
  const approval = await approveCall(ctx({ text: "x".repeat(100) }), serverConfig({ confirmMaxChars: 50 }));
  assert.equal(approval.approved, false);
  assert.match(approval.approved ? "" : approval.reason, /more than the 50 an approval question shows whole \("confirmMaxChars"\)/);
  assert.equal(asked.length, 0);
});

test('call approval: "for this session" covers the tool with any arguments; a single approval covers one call', async () => {
  const { ctx, asked } = context(() => ({ action: "accept" }));
  assert.ok((await approveCall(ctx({ a: 1 }), serverConfig())).approved);
  assert.ok((await approveCall(ctx({ a: 1 }), serverConfig())).approved);
  assert.equal(asked.length, 2, "one approval, one call: the same arguments are asked about again");
  const session = context(() => ({ action: "accept", content: { forThisSession: true } }));
  await approveCall(session.ctx({ a: 1 }), serverConfig());
  const later = await approveCall(session.ctx({ a: 2, long: "y".repeat(20_000) }), serverConfig());
  assert.ok(later.approved);
  assert.equal(session.asked.length, 1, "any arguments, unasked");
});

test("runToolCall sends the approved snapshot: the server gets the arguments the user was shown", async () => {
  const dir = tempDir();
  const config = validateConfig(trustConfig(dir, "all"));
  const host = { spawn: platform.spawn, env: platform.env, windows: platform.windows, writeStderr: () => {} };
  const registry = new ToolboxRegistry(config, host, {});
  try {
    await registry.open("dev");
    const args: Record<string, unknown> = { id: "shown" };
    const { session } = context(() => {
      args.id = "swapped";
      return { action: "accept" };
    });
    const request = { signal: new AbortController().signal };
    const result = await runToolCall({ ...session, config, offer: new SessionOffer(registry, () => config) }, request, { toolbox: "dev", server: "store", name: "echo" }, args);
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(callsReached(dir), [{ tool: "echo", arguments: { id: "shown" } }]);
  } finally {
    await registry.closeAll();
  }
});
