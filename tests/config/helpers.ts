import assert from "node:assert/strict";
import { ConfigError, type Environment, type LoadedConfig, loadConfig } from "../../src/config/index.ts";

export const CONFIG_PATH = "/work/project/workbench-config.json";
/** What loadConfig puts before a problem found alone: the file's name. */
export const IN_FILE = `In configuration file '${CONFIG_PATH}': `;

/** A readTextFile over in-memory files that fails like Deno for missing ones. */
export function memoryReader(files: Record<string, string>): (path: string) => Promise<string> {
  return (path) => {
    if (Object.hasOwn(files, path)) return Promise.resolve(files[path]);
    const error = new Error(`No such file or directory: readfile '${path}'`);
    error.name = "NotFound";
    return Promise.reject(error);
  };
}

export function loadText(text: string, env: Environment = {}): Promise<LoadedConfig> {
  return loadConfig({ path: CONFIG_PATH, readTextFile: memoryReader({ [CONFIG_PATH]: text }), env });
}

export function loadJson(value: unknown, env: Environment = {}): Promise<LoadedConfig> {
  return loadText(JSON.stringify(value, null, 2), env);
}

/** A config with one toolbox "dev" holding one server "fs". */
export function withServer(server: Record<string, unknown>): unknown {
  return { toolboxes: { dev: { mcpServers: { fs: server } } } };
}

/** The message of the ConfigError that `run` throws; fails if it throws nothing else. */
export function configErrorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${error}`);
    assert.equal(error.name, "ConfigError");
    return error.message;
  }
  assert.fail("expected a ConfigError, but nothing was thrown");
}

/** Asserts that `promise` rejects with a ConfigError carrying exactly `message`. */
export async function rejectsWithConfigError(promise: Promise<unknown>, message: string): Promise<void> {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${error}`);
    assert.equal(error.name, "ConfigError");
    assert.equal(error.message, message);
    return true;
  });
}
