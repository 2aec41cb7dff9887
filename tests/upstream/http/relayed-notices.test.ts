/**
 * The change feed across replicas (issue 48): only what a session's copy may say for the client's
 * GET stream passes, made anew from its checked parts; a notice read from the store is input.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { noticeOf, parseNotice } from "../../../src/upstream/http/relayed-notices.ts";

test("relayed notices: the list_changed notifications and resources/updated pass, with nothing but their method and URI", () => {
  for (const method of ["notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed"]) {
    assert.deepEqual(noticeOf({ jsonrpc: "2.0", method, params: { _meta: { x: 1 }, extra: "y".repeat(1_000) } }), { jsonrpc: "2.0", method });
  }
  const updated = { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "note://a", _meta: { big: "z" } } };
  assert.deepEqual(noticeOf(updated), { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "note://a" } });
});

test("relayed notices: anything else does not pass: a request, another notification, a URI missing or too long, a message that is not one", () => {
  const refused = [
    { jsonrpc: "2.0", id: 1, method: "notifications/tools/list_changed" },
    { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } },
    { jsonrpc: "2.0", method: "sampling/createMessage", params: {} },
    { jsonrpc: "2.0", method: "notifications/resources/updated" },
    { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "" } },
    { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: 5 } },
    { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: `note://${"a".repeat(9_000)}` } },
    { jsonrpc: "1.0", method: "notifications/tools/list_changed" },
    null, "notifications/tools/list_changed", [],
  ];
  for (const message of refused) assert.equal(noticeOf(message), undefined, JSON.stringify(message)?.slice(0, 80));
});

test("relayed notices: a notice read from the store is checked like input", () => {
  const message = { jsonrpc: "2.0", method: "notifications/tools/list_changed" };
  assert.deepEqual(parseNotice(JSON.stringify({ session: "s-1", message })), { session: "s-1", message });
  for (const text of ["not json", "null", "[]", JSON.stringify({ message }), JSON.stringify({ session: "", message }),
    JSON.stringify({ session: "s".repeat(200), message }), JSON.stringify({ session: 5, message }),
    JSON.stringify({ session: "s-1", message: { jsonrpc: "2.0", method: "notifications/message" } })]) {
    assert.equal(parseNotice(text), undefined, text.slice(0, 80));
  }
});
