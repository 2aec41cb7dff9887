import { test } from "node:test";
import assert from "node:assert/strict";
import { checkMessage, isUsableId } from "../../src/transport/jsonrpc-check.ts";
import { MAX_JSON_DEPTH, mayNestDeeperThan, nestedDeeperThan } from "../../src/transport/json-depth.ts";

const refused = (code: number, message: string, id: string | number | null, answer: boolean, method?: string) => ({
  kind: "refused",
  code,
  message,
  id,
  answer,
  ...(method !== undefined && { method }),
});

test("jsonrpc check: requests, notifications and responses pass as they are", () => {
  const request = { jsonrpc: "2.0", id: "a", method: "ping", params: { _meta: { progressToken: 3 } } };
  assert.deepEqual(checkMessage(request), { kind: "request", message: request, id: "a", method: "ping" });
  const notification = { jsonrpc: "2.0", method: "notifications/initialized" };
  assert.deepEqual(checkMessage(notification), { kind: "notification", message: notification, method: "notifications/initialized" });
  const response = { jsonrpc: "2.0", id: 4, result: {} };
  assert.deepEqual(checkMessage(response), { kind: "response", message: response, id: 4 });
  const failure = { jsonrpc: "2.0", id: 5, error: { code: -1, message: "no" } };
  assert.deepEqual(checkMessage(failure), { kind: "response", message: failure, id: 5 });
});

test("jsonrpc check: ids must be strings or safe integers", () => {
  for (const id of ["", "x", 0, -1, Number.MAX_SAFE_INTEGER]) assert.ok(isUsableId(id), String(id));
  for (const id of [null, undefined, true, {}, [], [1], 1.5, Infinity, NaN, 2 ** 53, 1e29]) assert.ok(!isUsableId(id), String(id));
  const badId = "Invalid Request: id must be a string or a safe integer";
  assert.deepEqual(checkMessage({ jsonrpc: "2.0", id: 2 ** 53, method: "ping" }), refused(-32600, badId, null, true, "ping"));
  // A response with id null (an error the peer could not place) is refused but never answered.
  const stray = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } };
  assert.deepEqual(checkMessage(stray), refused(-32600, badId, null, false));
});

test("jsonrpc check: what is wrong, and whether JSON-RPC answers it", () => {
  const cases: [unknown, ReturnType<typeof refused>][] = [
    [[], refused(-32600, "Invalid Request: batches are not supported; send one message per line", null, true)],
    ["text", refused(-32600, "Invalid Request: a message must be a JSON object", null, true)],
    [{ id: 1, method: "ping" }, refused(-32600, 'Invalid Request: jsonrpc must be "2.0"', 1, true, "ping")],
    [{ jsonrpc: "2.0", id: 1, method: 5 }, refused(-32600, "Invalid Request: method must be a string", 1, true)],
    [{ jsonrpc: "2.0", id: 1 }, refused(-32600, "Invalid Request: a message needs a method, or an id with a result or an error", 1, true)],
    [{ jsonrpc: "2.0", id: 1, method: "ping", params: [1] }, refused(-32602, "Invalid params: params must be an object", 1, true, "ping")],
    [{ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: 2 } }, refused(-32602, "Invalid params: params._meta must be an object", 1, true, "ping")],
    [
      { jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { progressToken: {} } } },
      refused(-32602, "Invalid params: params._meta.progressToken must be a string or an integer", 1, true, "ping"),
    ],
    // Notifications and responses are refused silently: JSON-RPC never answers them.
    [{ jsonrpc: "2.0", method: "x", params: "y" }, refused(-32602, "Invalid params: params must be an object", null, false, "x")],
    [{ jsonrpc: "2.0", id: 1, result: [] }, refused(-32600, "Invalid Request: result must be an object", 1, false)],
    [{ jsonrpc: "2.0", id: 1, error: { code: 1.5, message: "m" } }, refused(-32600, "Invalid Request: error needs an integer code and a string message", 1, false)],
  ];
  for (const [input, expected] of cases) assert.deepEqual(checkMessage(input), expected, JSON.stringify(input));
});

test("json depth: the limit is exact, measured without recursion", () => {
  const nest = (levels: number) => JSON.parse("[".repeat(levels) + "]".repeat(levels));
  assert.equal(nestedDeeperThan(nest(MAX_JSON_DEPTH)), false);
  assert.equal(nestedDeeperThan(nest(MAX_JSON_DEPTH + 1)), true);
  // Three levels of our own around the nested arrays.
  assert.equal(nestedDeeperThan({ a: { b: [nest(MAX_JSON_DEPTH - 3)] } }), false);
  assert.equal(nestedDeeperThan({ a: { b: [nest(MAX_JSON_DEPTH - 2)] } }), true);
  // Far deeper than any stack: JSON.parse takes it, and so must the check.
  assert.equal(nestedDeeperThan(nest(500_000)), true);
  assert.equal(nestedDeeperThan("x"), false);
  // Only a line of more than two bytes a level can be too deep: short lines skip the walk.
  assert.equal(mayNestDeeperThan(2 * MAX_JSON_DEPTH), false);
  assert.equal(mayNestDeeperThan(2 * MAX_JSON_DEPTH + 1), true);
});
