/** The approval question and its answer (src/trust/confirm.ts, confirm-policy.ts, approvals.ts), as plain data. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { needsApproval, policyText } from "../../src/trust/confirm-policy.ts";
import { approvalQuestion, asksForms, cannotAsk, FOR_THIS_SESSION, readAnswer } from "../../src/trust/confirm.ts";
import { approvalKey, SessionApprovals } from "../../src/trust/approvals.ts";

const destructive = { name: "rm", annotations: { destructiveHint: true } };
const plain = { name: "ls" };

test("confirm policy: never, destructive (the server's annotation), all, or the tools named", () => {
  assert.equal(needsApproval(undefined, destructive), false);
  assert.equal(needsApproval("never", destructive), false);
  assert.equal(needsApproval("destructive", destructive), true);
  assert.equal(needsApproval("destructive", plain), false);
  assert.equal(needsApproval("destructive", { name: "x", annotations: { destructiveHint: false } }), false);
  assert.equal(needsApproval("all", plain), true);
  assert.equal(needsApproval(["ls"], plain), true);
  assert.equal(needsApproval(["ls"], destructive), false);
  assert.equal(policyText(["a"]), '"confirm": ["a"]');
  assert.equal(policyText(undefined), '"confirm": "never"');
});

test("confirm: only an explicit accept approves; for the session only with the field set to true", () => {
  assert.deepEqual(readAnswer({ action: "accept" }), { approved: true, forSession: false });
  assert.deepEqual(readAnswer({ action: "accept", content: { [FOR_THIS_SESSION]: true } }), { approved: true, forSession: true });
  assert.deepEqual(readAnswer({ action: "accept", content: { [FOR_THIS_SESSION]: "true" } }), { approved: true, forSession: false });
  assert.deepEqual(readAnswer({ action: "decline" }), { approved: false, reason: "the user declined the call" });
  assert.equal(readAnswer({ action: "cancel" }).approved, false);
  assert.equal(readAnswer({}).approved, false);
  assert.equal(readAnswer({ action: "ACCEPT" }).approved, false);
});

test("confirm: form elicitation is declared by `form`, or by an empty elicitation object (MCP's compatibility rule)", () => {
  assert.equal(asksForms(undefined), false);
  assert.equal(asksForms({}), false);
  assert.equal(asksForms({ elicitation: {} }), true);
  assert.equal(asksForms({ elicitation: { form: {} } }), true);
  assert.equal(asksForms({ elicitation: { form: {}, url: {} } }), true);
  assert.equal(asksForms({ elicitation: { url: {} } }), false);
});

test("confirm: the question names toolbox, server and tool; arguments masked and cut; a boolean for the session", () => {
  const question = approvalQuestion({
    toolbox: "dev",
    server: "github",
    tool: "delete_repository",
    args: { repo: "me/x", apiKey: "k-123456789", body: "y".repeat(300), list: Array.from({ length: 30 }, (_, i) => i), deep: { a: { b: { c: { d: { e: 1 } } } } } },
    policy: "destructive",
    redact: (text) => text.replaceAll("me/x", "***"),
  }) as { message: string; requestedSchema: { properties: Record<string, { type: string; default: boolean }> } };
  assert.match(question.message, /^Allow the call of tool 'delete_repository' of server 'github' \(toolbox 'dev'\)\?\nArguments: \{/);
  const shown = JSON.parse(question.message.slice(question.message.indexOf("{")));
  assert.equal(shown.repo, "***", "the server's secrets are masked");
  assert.equal(shown.apiKey, "***", "a key named like a secret is masked");
  assert.equal(shown.body, `${"y".repeat(200)}… (300 characters)`);
  assert.equal(shown.list.length, 21);
  assert.equal(shown.list[20], "… (10 more)");
  assert.deepEqual(shown.deep, { a: { b: { c: "{…}" } } });
  assert.deepEqual(question.requestedSchema.properties[FOR_THIS_SESSION], {
    type: "boolean",
    title: "For this session",
    description: "Allow 'delete_repository' of server 'github' (toolbox 'dev') until this session ends, without asking again",
    default: false,
  });
  const huge = approvalQuestion({ toolbox: "t", server: "s", tool: "x", args: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, "z".repeat(300)])), policy: "all", redact: (t) => t }) as { message: string };
  assert.ok(huge.message.length < 4_200, "the arguments' part is bounded");
  assert.match(cannotAsk({ toolbox: "t", server: "s", tool: "x", args: {}, policy: ["x"], redact: (t) => t }, "why"), /^the call needs the user's approval \("confirm": \["x"\] on server 's' of toolbox 't'\), and why: /);
});

test("approvals: remembered per tool; a retry allowed once, for the same state and arguments only", () => {
  const approvals = new SessionApprovals();
  const key = approvalKey({ toolbox: "t", server: "s", name: "x" });
  assert.equal(approvals.remembered(key), false);
  approvals.remember(key);
  assert.equal(approvals.remembered(key), true);
  assert.equal(approvals.remembered(approvalKey({ toolbox: "t", server: "s", name: "y" })), false);
  approvals.allowRetry(key, "state-1", { a: 1 });
  assert.equal(approvals.takeRetry(key, "state-1", { a: 2 }), false, "other arguments");
  approvals.allowRetry(key, "state-1", { a: 1 });
  assert.equal(approvals.takeRetry(key, "state-2", { a: 1 }), false, "another state");
  assert.equal(approvals.takeRetry(key, "state-1", { a: 1 }), true);
  assert.equal(approvals.takeRetry(key, "state-1", { a: 1 }), false, "used up");
  for (let i = 0; i < 300; i++) approvals.allowRetry(key, `s${i}`, {});
  assert.equal(approvals.takeRetry(key, "s0", {}), false, "the oldest are dropped past the bound");
  assert.equal(approvals.takeRetry(key, "s299", {}), true);
});
