/** oauthFailureText: the SDK's schema and parser dumps become one line a user can act on. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { oauthFailureText } from "../../src/auth/oauth-failure.ts";

test("oauth failure: a schema dump, an HTML page and invalid metadata are said in words; other errors keep theirs", () => {
  const dump = new Error('HTTP 404: Invalid OAuth error response: [\n  {\n    "expected": "string",\n    "code": "invalid_type"\n  }\n]. Raw body: {"jsonrpc":"2.0"}');
  assert.equal(
    oauthFailureText(dump),
    "the server answered an OAuth request with HTTP 404 and no OAuth error: it does not seem to offer an OAuth login (if it wants a token, set it in headers.Authorization)",
  );
  for (const parse of [new SyntaxError("JSON Parse error: Unrecognized token '<'"), new SyntaxError(`Unexpected token '<', "<!doctype "... is not valid JSON`)]) {
    assert.match(oauthFailureText(parse), /^the server answered an OAuth request with something that is not JSON \(an HTML page\?\)/);
  }
  assert.match(oauthFailureText(new Error('[\n  { "code": "invalid_type", "expected": "string", "path": ["issuer"] }\n]')), /OAuth metadata is not valid/);
  assert.equal(oauthFailureText(new Error("the authorization server refused: access_denied\nmore")), "the authorization server refused: access_denied");
});
