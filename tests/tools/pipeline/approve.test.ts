/**
 * The approve step alone, with a stub next and no server: a call the server's `confirm` does not
 * cover goes on unasked; one it covers is asked of the client (here a stand-in for the session's
 * client: the question and the answers as a client sends them), refused when no one can be asked,
 * and noted as declined.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ConfirmPolicy } from "../../../src/config/index.ts";
import type { Upstream } from "../../../src/protocol/upstream.ts";
import { approve } from "../../../src/tools/pipeline/approve.ts";
import type { CallSession } from "../../../src/tools/pipeline/step.ts";
import type { Result } from "../../../src/tools/pipeline/values.ts";
import { StoredApprovals } from "../../../src/trust/approvals.ts";
import { FOR_THIS_SESSION } from "../../../src/trust/confirm.ts";
import type { Tool } from "../../helpers/sdk.ts";
import { resolvedCall, serverOf, stubNext, stubTarget } from "../../helpers/calls.ts";
import { flakyStore } from "../../helpers/flaky-store.ts";
import { NOOP_SPAN, type Span } from "../../../src/telemetry/span.ts";

import { MemoryStore } from "../../../src/store/memory-store.ts";

const memoryApprovals = () => new StoredApprovals(new MemoryStore(), "session", () => 60_000);
const tool = { name: "delete_item", inputSchema: { type: "object" }, annotations: { destructiveHint: true } } as Tool;
const id = { toolbox: "dev", server: "s", name: "delete_item" };
const errorOf = (result: Result<unknown>) => result.ok ? "" : result.error;
const callOf = (confirm: ConfirmPolicy, args: Record<string, unknown>, session: Partial<CallSession> = {}, signal?: AbortSignal) =>
  resolvedCall({ id, args, tool, session, target: stubTarget(serverOf({ confirm })).target, request: signal && { signal } });

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

test("approve: a tool the policy does not cover goes on unasked, with the caller's own arguments", async () => {
  const { next, got } = stubNext();
  const args = { id: "1" };
  const call = callOf("never", args);
  assert.equal((await approve(next)(call)).ok, true);
  assert.equal(got[0].args, args);
  assert.equal(got[0].asked, undefined);
  assert.deepEqual(call.note, {});
});

test("approve: with no client to ask, or one without form elicitation, the call is refused, noted as declined, and goes no further", async () => {
  const { next, got } = stubNext();
  const alone = callOf("destructive", {});
  assert.match(errorOf(await approve(next)(alone)), /^Error executing tool 'delete_item' in server 's' \(toolbox 'dev'\): the call needs the user's approval .*there is no client to ask/);
  assert.deepEqual(alone.note, { outcome: "declined" });
  const formless = { ...client(() => ({})), capabilities: {} };
  assert.match(errorOf(await approve(next)(callOf("all", {}, { upstream: formless }))), /it declared no form elicitation/);
  assert.equal(got.length, 0);
});

test("approve: the client's accept lets the call go; for this session, the next call is not asked", async () => {
  const asked: unknown[] = [];
  const upstream = client(() => ({ action: "accept", content: { [FOR_THIS_SESSION]: true } }), asked);
  const session = { upstream, approvals: memoryApprovals() };
  const { next, got } = stubNext();
  assert.equal((await approve(next)(callOf("destructive", { id: "1" }, session))).ok, true);
  assert.equal((await approve(next)(callOf("destructive", { id: "2" }, session))).ok, true);
  assert.deepEqual(got.map((call) => [call.args, call.asked]), [[{ id: "1" }, true], [{ id: "2" }, false]]);
  assert.equal(asked.length, 1);
});

test("approve: the question names the team member whose call it is (a client of serve --http), and no one for the local user", async () => {
  const asked: { message: string }[] = [];
  const upstream = client(() => ({ action: "accept" }), asked as unknown[]);
  const { next } = stubNext();
  await approve(next)(callOf("destructive", { id: "1" }, { upstream, clientName: "alice" }));
  await approve(next)(callOf("destructive", { id: "1" }, { upstream }));
  assert.match(asked[0].message, /^Allow the call of tool 'delete_item' of server 's' \(toolbox 'dev'\) on behalf of client 'alice' with these arguments/);
  assert.match(asked[1].message, /^Allow the call of tool 'delete_item' of server 's' \(toolbox 'dev'\) with these arguments/);
});

/** The client request's span, keeping the INTERNAL spans made under it (telemetry on), as they were when ended. */
function parentSpan() {
  const children: { name: string; attributes: Record<string, unknown>; ended: boolean }[] = [];
  const span: Span = {
    ...NOOP_SPAN,
    child(name, attributes = {}) {
      const child = { name, attributes: { ...attributes } as Record<string, unknown>, ended: false };
      children.push(child);
      return {
        ...NOOP_SPAN,
        setAttribute(key, value) {
          child.attributes[key] = value;
          return this;
        },
        end: () => void (child.ended = true),
      };
    },
  };
  return { span, children };
}

test("approve: the question is an INTERNAL span of the client's request, naming the tool and what the user said; unasked, none", async () => {
  const { next } = stubNext();
  const { span, children } = parentSpan();
  const ask = (answer: string, confirm: ConfirmPolicy = "all", upstream: Upstream | null = client(() => ({ action: answer }))) =>
    resolvedCall({ id, args: {}, tool, session: { upstream: upstream ?? undefined }, target: stubTarget(serverOf({ confirm })).target, request: { span } });
  await approve(next)(ask("accept"));
  await approve(next)(ask("decline"));
  // Not asked: the policy does not cover the tool, there is no client to ask, or it cannot ask.
  await approve(next)(ask("accept", "never"));
  await approve(next)(ask("accept", "all", null));
  await approve(next)(ask("accept", "all", { ...client(() => ({})), capabilities: {} }));
  const about = { "mcp_workbench.toolbox": "dev", "mcp_workbench.server": "s", "gen_ai.tool.name": "delete_item" };
  assert.deepEqual(children, [
    { name: "mcp_workbench.approval", attributes: { ...about, "mcp_workbench.approval.outcome": "approved" }, ended: true },
    { name: "mcp_workbench.approval", attributes: { ...about, "mcp_workbench.approval.outcome": "declined" }, ended: true },
  ]);
});

test("approve: a decline is noted; a client that cancels the call while asked is not a decline", async () => {
  const { next } = stubNext();
  const declined = callOf("all", {}, { upstream: client(() => ({ action: "decline" })) });
  assert.equal(errorOf(await approve(next)(declined)), "Error executing tool 'delete_item' in server 's' (toolbox 'dev'): the user declined the call");
  assert.deepEqual(declined.note, { outcome: "declined" });
  const cancelled = callOf("all", {}, { upstream: client(() => ({ action: "accept" })) }, AbortSignal.abort());
  assert.match(errorOf(await approve(next)(cancelled)), /the client cancelled the call while the user was asked/);
  assert.deepEqual(cancelled.note, {});
});

test("approve: after an approved call, a 2026-07-28 server's input_required lets the retry with the same arguments through once, unasked", async () => {
  const asked: unknown[] = [];
  const session = { upstream: client(() => ({ action: "accept" }), asked), approvals: memoryApprovals() };
  const inputRequired = { content: [], resultType: "input_required", inputRequests: {}, requestState: "state-1" } as never;
  const { next } = stubNext(inputRequired);
  await approve(next)(callOf("all", { a: 1 }, session));
  assert.equal(asked.length, 1);
  const retry = () => resolvedCall({ id, args: { a: 1 }, tool, session, target: stubTarget(serverOf({ confirm: "all" })).target, request: { input: { requestState: "state-1", passInputRequired: true } } });
  assert.equal((await approve(stubNext().next)(retry())).ok, true);
  assert.equal(asked.length, 1, "the retry was not asked");
  await approve(stubNext().next)(retry());
  assert.equal(asked.length, 2, "taken once: a second retry is asked");
});

test("approve: approvals that cannot be read (the store is down) refuse the call with the store's words; the server never sees it", async () => {
  const { store, setDown } = flakyStore(new MemoryStore());
  const approvals = new StoredApprovals(store, "s", () => 60_000);
  setDown(true);
  const { next, got } = stubNext();
  const refused = await approve(next)(callOf("all", {}, { upstream: client(() => ({ action: "accept" })), approvals }));
  assert.match(errorOf(refused), /^Error executing tool 'delete_item' in server 's' \(toolbox 'dev'\): Connection refused/);
  assert.equal(got.length, 0);
});
