/**
 * The JavaScript that runs in a fresh QuickJS context before the script: it builds `tools`,
 * `call` and `console` from two host functions that take and give strings only, so a script that
 * rewrites prototypes or builtins afterwards changes nothing outside its own context.
 */

/**
 * Evaluates to a function of (hostCall, hostLog, serversJson) that installs the globals and
 * returns `finish`: it runs the script's function and resolves to its value as JSON text.
 */
export const PRELUDE = `(function (hostCall, hostLog, serversJson) {
  "use strict";
  const parse = JSON.parse, stringify = JSON.stringify, freeze = Object.freeze, define = Object.defineProperty;
  const isArray = Array.isArray, keys = Object.keys, MakeError = Error, toText = String;
  const servers = parse(serversJson);
  const textOf = (result) => {
    const items = isArray(result.content) ? result.content : [];
    let text = "";
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (item && item.type === "text" && typeof item.text === "string") text += (text === "" ? "" : "\\n") + item.text;
    }
    return text;
  };
  // The arguments are made into JSON when the host takes the call: a call that waits for the
  // script's budget of bytes in flight holds only its arguments, not a copy of them as text.
  const callRaw = (server, name, args) =>
    hostCall(toText(server), toText(name), () => args === undefined ? "{}" : stringify(args)).then(parse);
  const unwrap = (result) => {
    if (result.isError) throw new MakeError(textOf(result) || "The tool failed without a message");
    if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
    const text = textOf(result);
    try { return parse(text); } catch { return text; }
  };
  const tools = {};
  for (const server of keys(servers)) {
    const entry = {};
    for (const name of servers[server]) entry[name] = (args) => callRaw(server, name, args).then(unwrap);
    tools[server] = freeze(entry);
  }
  const show = (value) => {
    if (typeof value === "string") return value;
    try {
      const json = stringify(value);
      return json === undefined ? toText(value) : json;
    } catch {
      return toText(value);
    }
  };
  const logger = (prefix) => (...values) => { hostLog(prefix + values.map(show).join(" ")); };
  const console = freeze({ log: logger(""), info: logger(""), debug: logger(""), warn: logger("warn: "), error: logger("error: ") });
  define(globalThis, "tools", { value: freeze(tools) });
  define(globalThis, "call", { value: (server, name, args) => callRaw(server, name, args) });
  define(globalThis, "console", { value: console });
  return (script) => script().then((value) => {
    const json = stringify(value);
    return json === undefined ? "null" : json;
  });
})`;
