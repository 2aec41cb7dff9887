import { test } from "node:test";
import assert from "node:assert/strict";
import { parseJson } from "../../src/config/index.ts";
import { findJsonErrorOffset } from "../../src/config/json-error-offset.ts";
import { CONFIG_PATH, configErrorOf, loadText, rejectsWithConfigError } from "./helpers.ts";

const parseError = (text: string) => configErrorOf(() => parseJson(text, CONFIG_PATH));
const at = (line: number, column: number, problem: string) =>
  `Invalid JSON in configuration file '${CONFIG_PATH}' at line ${line}, column ${column}: ${problem}`;

// A trailing comma on line 2, column 18, before the closing brace on line 3.
const TRAILING_COMMA = ['{', '  "toolboxes": {},', '    }'];
const TRAILING = at(2, 18, "trailing comma before '}' (JSON allows no comma after the last item: remove this one)");

test("parseJson: parses valid JSON", () => {
  assert.deepEqual(parseJson('{"toolboxes": {"a": [1, true, null, "x"]}}', CONFIG_PATH), {
    toolboxes: { a: [1, true, null, "x"] },
  });
});

test("parseJson: strips a leading byte order mark", () => {
  assert.deepEqual(parseJson('\uFEFF{"toolboxes": {}}', CONFIG_PATH), { toolboxes: {} });
});

test("parseJson: reports line and column on LF input", () => {
  assert.equal(parseError(TRAILING_COMMA.join("\n")), TRAILING);
});

test("parseJson: reports the same line and column on CRLF input", () => {
  assert.equal(parseError(TRAILING_COMMA.join("\r\n")), TRAILING);
});

test("parseJson: counts a lone CR as a line break", () => {
  assert.equal(parseError(TRAILING_COMMA.join("\r")), TRAILING);
});

test("parseJson: the byte order mark takes no column", () => {
  assert.equal(parseError("\uFEFF{x}"), at(1, 2, "unexpected character 'x'"));
});

test("parseJson: columns count characters, not UTF-16 units", () => {
  assert.equal(parseError('{"a": "😀😀", x}'), at(1, 13, "unexpected character 'x'"));
});

test("parseJson: unexpected end of file", () => {
  assert.equal(parseError('{\n  "toolboxes": {'), at(2, 17, "unexpected end of file"));
  assert.equal(parseError(""), at(1, 1, "unexpected end of file"));
  assert.equal(parseError('{"a": "unclosed'), at(1, 16, "unexpected end of file"));
  assert.equal(parseError("[1, 2"), at(1, 6, "unexpected end of file"));
});

test("parseJson: common mistakes", () => {
  assert.equal(parseError('{\n  // comment\n}'), at(2, 3, "unexpected character '/'"));
  assert.equal(parseError("{'a': 1}"), at(1, 2, `unexpected character "'"`));
  assert.equal(parseError('{a: 1}'), at(1, 2, "unexpected character 'a'"));
  assert.equal(parseError('{"a" 1}'), at(1, 6, "unexpected character '1'"));
  assert.equal(parseError('{"a": 1} {}'), at(1, 10, "unexpected character '{'"));
  assert.equal(parseError('{"a": 1]'), at(1, 8, "unexpected character ']'"));
  assert.equal(parseError('{"a": [1,]}'), at(1, 9, "trailing comma before ']' (JSON allows no comma after the last item: remove this one)"));
  assert.equal(parseError('{"a": tru}'), at(1, 10, "unexpected character '}'"));
  assert.equal(parseError('{"a": 01}'), at(1, 8, "unexpected character '1'"));
  assert.equal(parseError('{"a": 1.}'), at(1, 9, "unexpected character '}'"));
  assert.equal(parseError('{"a": +1}'), at(1, 7, "unexpected character '+'"));
  assert.equal(parseError('{"a": "\\x"}'), at(1, 9, "unexpected character 'x'"));
  assert.equal(parseError('{"a": "\\u12G4"}'), at(1, 12, "unexpected character 'G'"));
});

test("parseJson: invisible characters are named by code point", () => {
  assert.equal(parseError('{"a":\u00A01}'), at(1, 6, "unexpected character U+00A0"));
  assert.equal(parseError('{"a": "tab\there"}'), at(1, 11, "unexpected character U+0009"));
  assert.equal(parseError('{"a": "line\r\nbreak"}'), at(1, 12, "unexpected character U+000D"));
});

test("parseJson: does not quote the file's content beyond one character", () => {
  const message = parseError('{"env": {"TOKEN": hunter2-secret}}');
  assert.equal(message, at(1, 19, "unexpected character 'h'"));
});

test("parseJson: loadConfig reports JSON errors with the file's path", async () => {
  await rejectsWithConfigError(loadText(TRAILING_COMMA.join("\r\n")), TRAILING);
});

const valid = [
  "0", "-0", "1.5e-3", "-12E+2", '""', '"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9"', "true", "false", "null",
  "[]", "{}", " [ 1 , [ ] , { } ] ", '{"a":{"b":[{"c":null}]}}', "\t\r\n{}\n",
];
const invalid = [
  "", " ", "[", "]", "{", "}", "[1,]", '{"a":}', '{"a"}', '{,}', "[,1]", "01", "1.", "1e", "-", ".5", "tru", "nul",
  "True", '"\u0001"', "NaN", "Infinity", "[1 2]", '{"a":1,}', '{"a":1 "b":2}', "'x'", "[]]", "{}}", "\u00A0[]",
];

test("findJsonErrorOffset agrees with JSON.parse: valid JSON has no error offset", () => {
  for (const text of valid) {
    JSON.parse(text);
    assert.equal(findJsonErrorOffset(text), undefined, text);
  }
});

test("findJsonErrorOffset agrees with JSON.parse: invalid JSON always gets an offset", () => {
  for (const text of invalid) {
    assert.throws(() => JSON.parse(text), SyntaxError, text);
    assert.equal(typeof findJsonErrorOffset(text), "number", text);
  }
});

test("findJsonErrorOffset agrees with JSON.parse: deep nesting does not overflow the stack", () => {
  const depth = 200_000;
  assert.equal(findJsonErrorOffset("[".repeat(depth)), depth);
  assert.equal(findJsonErrorOffset("[".repeat(depth) + "]".repeat(depth)), undefined);
});
