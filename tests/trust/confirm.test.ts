/** The approval question and its answer (src/trust/confirm.ts, confirm-policy.ts, approvals.ts), as plain data. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { needsApproval, policyText } from "../../src/trust/confirm-policy.ts";
import { approvalQuestion, asksForms, cannotAsk, FOR_THIS_SESSION, readAnswer } from "../../src/trust/confirm.ts";
import { approvalKey, argumentsDigest, RETRY_MS, StoredApprovals } from "../../src/trust/approvals.ts";

import { MemoryStore } from "../../src/store/memory-store.ts";

const memoryApprovals = () => new StoredApprovals(new MemoryStore(), "session", () => 60_000);
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

type Asked = { ok: true; digest: string; params: { message: string; requestedSchema: { properties: Record<string, unknown> } } };

/** The question for these arguments (this server's secret "me/x"), asked. */
function asked(args: Record<string, unknown>, maxChars = 10_000): Asked {
  const question = approvalQuestion({ toolbox: "dev", server: "github", tool: "delete_repository", args, policy: "destructive", redact: (text) => text.replaceAll("me/x", "***"), maxChars });
  assert.equal(question.ok, true, JSON.stringify(question));
  return question as Asked;
}

/** The arguments as the question shows them. */
function shownIn(question: Asked): Record<string, unknown> {
  const { message } = question.params;
  return JSON.parse(message.slice(message.indexOf("\n{") + 1, message.lastIndexOf("}") + 1));
}

test("confirm: the question names toolbox, server and tool and shows every argument whole, secrets masked and said so", () => {
  const deep = { a: { b: { c: { d: { e: { f: "the bottom" } } } } } };
  const args = {
    repo: "me/x",
    apiKey: "k-123456789",
    body: "y".repeat(300) + "TAIL",
    list: Array.from({ length: 30 }, (_, i) => i),
    deep,
    ...Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, i])),
    credentials: { user: "bob", password: "pw-1", command: "rm -rf /" },
    tokens: ["t-1", "t-2"],
  };
  const question = asked(args);
  assert.match(question.params.message, /^Allow the call of tool 'delete_repository' of server 'github' \(toolbox 'dev'\) with these arguments, all of them \(sha-256 [0-9a-f]{64}\)\?\n\{/);
  const shown = shownIn(question);
  assert.equal(shown.repo, "***", "the server's secrets are masked");
  assert.equal(shown.apiKey, "***", "a key named like a secret is masked");
  assert.equal(shown.body, args.body, "a long string is shown whole");
  assert.deepEqual(shown.list, args.list, "every item");
  assert.deepEqual(shown.deep, deep, "at any depth");
  assert.equal(shown.k24, 24, "every key");
  assert.deepEqual(shown.credentials, { user: "bob", password: "***", command: "rm -rf /" }, "an object under a secret-like key is shown, its own secrets masked");
  assert.deepEqual(shown.tokens, ["***", "***"]);
  assert.match(question.params.message, /\n\*\*\* stands for a value of a key named like a secret \(password, token, apiKey\.\.\.\) or for a secret in this server's configuration: they are sent as they are\.$/);
  assert.doesNotMatch(asked({ path: "/tmp" }).params.message, /stands for/, "said only when something is masked");
  assert.deepEqual(question.params.requestedSchema.properties[FOR_THIS_SESSION], {
    type: "boolean",
    title: "For this session, with any arguments",
    description: "Allow every call of 'delete_repository' of server 'github' (toolbox 'dev'), whatever its arguments, until this session ends, without asking again",
    default: false,
  });
});

test("confirm: the question carries the SHA-256 of exactly the arguments it shows; key order does not count", () => {
  const one = asked({ a: 1, b: "two" });
  assert.equal(one.digest, argumentsDigest({ b: "two", a: 1 }));
  assert.equal(one.digest, createHash("sha256").update('{"a":1,"b":"two"}').digest("hex"));
  assert.ok(one.params.message.includes(`(sha-256 ${one.digest})`));
  assert.notEqual(asked({ a: 1, b: "two " }).digest, one.digest);
  assert.notEqual(asked({ a: 1, b: "two", c: null }).digest, one.digest);
});

test("confirm: arguments longer than the question shows are not asked about, and the refusal says how to raise the limit", () => {
  const args = { body: "z".repeat(500) };
  const text = JSON.stringify(args, null, 2);
  assert.equal(asked(args, text.length).ok, true, "exactly at the limit is shown");
  const refused = approvalQuestion({ toolbox: "dev", server: "github", tool: "x", args, policy: "all", redact: (t) => t, maxChars: text.length - 1 });
  assert.deepEqual(refused, {
    ok: false,
    reason: `the call needs the user's approval and its arguments take ${text.length} characters, more than the ${text.length - 1} an approval question shows whole ("confirmMaxChars"), ` +
      `so it cannot be approved: no call is approved on a part the user was not shown; raise "confirmMaxChars" on server 'github' of toolbox 'dev' (or at the top of the configuration) to allow such calls`,
  });
  assert.match(cannotAsk({ toolbox: "t", server: "s", tool: "x", args: {}, policy: ["x"], redact: (t) => t, maxChars: 10 }, "why"), /^the call needs the user's approval \("confirm": \["x"\] on server 's' of toolbox 't'\), and why: /);
});

test("approvals: remembered per tool; a retry allowed once, for the same state and arguments only", async () => {
  const approvals = memoryApprovals();
  const key = approvalKey({ toolbox: "t", server: "s", name: "x" });
  assert.equal(await approvals.remembered(key), false);
  await approvals.remember(key);
  assert.equal(await approvals.remembered(key), true);
  assert.equal(await approvals.remembered(approvalKey({ toolbox: "t", server: "s", name: "y" })), false);
  await approvals.allowRetry(key, "state-1", { a: 1 });
  assert.equal(await approvals.takeRetry(key, "state-1", { a: 2 }), false, "other arguments");
  await approvals.allowRetry(key, "state-1", { a: 1 });
  assert.equal(await approvals.takeRetry(key, "state-2", { a: 1 }), false, "another state");
  assert.equal(await approvals.takeRetry(key, "state-1", { a: 1 }), true);
  assert.equal(await approvals.takeRetry(key, "state-1", { a: 1 }), false, "used up");
});

test("approvals: an allowed retry waits RETRY_MS at most; approvals for the session live as long as the session's expiry", async () => {
  let now = 0;
  const store = new MemoryStore({ now: () => now });
  const approvals = new StoredApprovals(store, "session", () => 60_000);
  const key = approvalKey({ toolbox: "t", server: "s", name: "x" });
  await approvals.allowRetry(key, "late", {});
  await approvals.allowRetry(key, "soon", {});
  await approvals.remember(key);
  now += RETRY_MS - 1;
  assert.equal(await approvals.takeRetry(key, "soon", {}), true);
  now += 2;
  assert.equal(await approvals.takeRetry(key, "late", {}), false, "expired");
  assert.equal(await approvals.remembered(key), false, "the session's approvals expired with it (60 s idle)");
});
