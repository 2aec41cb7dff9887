/**
 * The approve step alone: a call the server's `confirm` does not cover goes on unasked; one it
 * covers is asked of the client (here a stand-in for the session's client: the question and the
 * answers as a client sends them), refused when no one can be asked, and noted as declined.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type ConfirmPolicy, validateConfig } from "../../../src/config/index.ts";
import type { Upstream } from "../../../src/protocol/upstream.ts";
import { approveStep } from "../../../src/tools/pipeline/approve.ts";
import type { CallNote, Result } from "../../../src/tools/pipeline/values.ts";
import { SessionApprovals } from "../../../src/trust/approvals.ts";
import { FOR_THIS_SESSION } from "../../../src/trust/confirm.ts";
import type { Tool } from "../../helpers/sdk.ts";

const tool = { name: "delete_item", inputSchema: { type: "object" }, annotations: { destructiveHint: true } } as Tool;
const id = { toolbox: "dev", server: "s", name: "delete_item" };
const serverOf = (confirm: ConfirmPolicy) =>
  validateConfig({ toolboxes: { dev: { mcpServers: { s: { command: "x", confirm } } } } }).toolboxes.dev.mcpServers.s;
const errorOf = (result: Result<unknown>) => result.ok ? "" : result.error;

/** A client that declared form elicitation and answers each question with `answer` (or never, when aborted). */
function client(answer: (params: unknown) => Record<string, unknown>, asked: unknown[] = []): Upstream {
  return {
    capabilities: { elicitation: {} },
    logLevel: undefined,
    request: (_method, params, options) => {
      asked.push(params);
      if (options.signal?.aborted) return Promise.reject(new Error("aborted"));
      return Promise.resolve(answer(params));
    },
    notify: () => Promise.resolve(),
    onLogLevel: () => () => {},
    onRootsChanged: () => () => {},
  };
}

test("approve: a tool the policy does not cover goes on unasked", async () => {
  const note: CallNote = {};
  const args = { id: "1" };
  const result = await approveStep(id, args, tool, serverOf("never"), { signal: new AbortController().signal }, note);
  assert.deepEqual(result, { ok: true, value: { asked: false, args } });
  assert.equal(result.ok && result.value.args, args, "unasked: the caller's own arguments go on");
  assert.deepEqual(note, {});
});

test("approve: with no client to ask, or one without form elicitation, the call is refused and noted as declined", async () => {
  const note: CallNote = {};
  const alone = await approveStep(id, {}, tool, serverOf("destructive"), { signal: new AbortController().signal }, note);
  assert.match(errorOf(alone), /^Error executing tool 'delete_item' in server 's' \(toolbox 'dev'\): the call needs the user's approval .*there is no client to ask/);
  assert.deepEqual(note, { outcome: "declined" });
  const formless = { ...client(() => ({})), capabilities: {} };
  const refused = await approveStep(id, {}, tool, serverOf("all"), { upstream: formless, signal: new AbortController().signal }, {});
  assert.match(errorOf(refused), /it declared no form elicitation/);
});

test("approve: the client's accept lets the call go; for this session, the next call is not asked", async () => {
  const asked: unknown[] = [];
  const upstream = client(() => ({ action: "accept", content: { [FOR_THIS_SESSION]: true } }), asked);
  const ctx = { upstream, signal: new AbortController().signal, approvals: new SessionApprovals() };
  assert.deepEqual(await approveStep(id, { id: "1" }, tool, serverOf("destructive"), ctx, {}), { ok: true, value: { asked: true, args: { id: "1" } } });
  assert.deepEqual(await approveStep(id, { id: "2" }, tool, serverOf("destructive"), ctx, {}), { ok: true, value: { asked: false, args: { id: "2" } } });
  assert.equal(asked.length, 1);
});

test("approve: a decline is noted; a client that cancels the call while asked is not a decline", async () => {
  const note: CallNote = {};
  const declined = await approveStep(id, {}, tool, serverOf("all"), { upstream: client(() => ({ action: "decline" })), signal: new AbortController().signal }, note);
  assert.equal(errorOf(declined), "Error executing tool 'delete_item' in server 's' (toolbox 'dev'): the user declined the call");
  assert.deepEqual(note, { outcome: "declined" });
  const cancelledNote: CallNote = {};
  const ctx = { upstream: client(() => ({ action: "accept" })), signal: AbortSignal.abort() };
  const cancelled = await approveStep(id, {}, tool, serverOf("all"), ctx, cancelledNote);
  assert.match(errorOf(cancelled), /the client cancelled the call while the user was asked/);
  assert.deepEqual(cancelledNote, {});
});
