/** "codeMode" in the configuration: true, false or limits; a toolbox's value stands over the top level's. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError, DEFAULT_CODE_MODE, validateConfig } from "../../src/config/index.ts";

test("codeMode: absent is off, true takes the defaults, an object overrides some, a toolbox's false turns it off there", () => {
  assert.equal(validateConfig({ toolboxes: { a: {} } }).toolboxes.a.codeMode, undefined);
  const config = validateConfig({
    codeMode: true,
    toolboxes: { a: {}, b: { codeMode: false }, c: { codeMode: { maxCalls: 3, memoryMiB: 32 } } },
  });
  assert.deepEqual(config.toolboxes.a.codeMode, { timeoutMs: 30_000, memoryMiB: 64, maxCalls: 200, maxOutputBytes: 1024 * 1024 });
  assert.deepEqual(config.toolboxes.a.codeMode, DEFAULT_CODE_MODE);
  assert.equal(config.toolboxes.b.codeMode, undefined);
  assert.deepEqual(config.toolboxes.c.codeMode, { ...DEFAULT_CODE_MODE, maxCalls: 3, memoryMiB: 32 });
  assert.deepEqual(validateConfig({ toolboxes: { a: { codeMode: true } }, codeMode: { timeoutMs: 5 } }).toolboxes.a.codeMode, DEFAULT_CODE_MODE);
});

test("codeMode: anything else is refused where it stands", () => {
  assert.throws(() => validateConfig({ codeMode: 1, toolboxes: {} }), (error: unknown) => {
    assert.ok(error instanceof ConfigError);
    assert.match(error.message, /at codeMode: expected true, false or an object of limits/);
    return true;
  });
  assert.throws(() => validateConfig({ toolboxes: { a: { codeMode: { memoryMiB: 2 } } } }), /at toolboxes\.a\.codeMode\.memoryMiB: expected an integer of MiB from 8 to 1024/);
  assert.throws(() => validateConfig({ toolboxes: { a: { codeMode: { timeout: 5 } } } }), /at toolboxes\.a\.codeMode/);
});
