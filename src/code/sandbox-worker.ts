/**
 * The sandbox worker: a thread of its own that runs scripts in QuickJS one at a time, so that a
 * script that loops never holds up the workbench. Its only ways out are the messages of
 * messages.ts; the workbench answers its tool calls and may end it at any time.
 */
import type { FromWorker, ToWorker } from "./messages.ts";
import { runScript } from "./engine.ts";

/** The worker's global scope as far as it is used here (web-standard in Bun and Deno). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
  postMessage(message: FromWorker): void;
}

const scope = globalThis as unknown as WorkerScope;
const replies = new Map<number, (result: string) => void>();
let nextId = 1;

scope.onmessage = (event) => {
  const message = event.data;
  if (message.type === "reply") {
    replies.get(message.id)?.(message.result);
    replies.delete(message.id);
    return;
  }
  void runScript(message, {
    call: (server, name, args) =>
      new Promise((resolve) => {
        const id = nextId++;
        replies.set(id, resolve);
        scope.postMessage({ type: "call", id, server, name, args });
      }),
    log: (line) => scope.postMessage({ type: "log", line }),
    started: () => scope.postMessage({ type: "started" }),
  }).then((done) => {
    replies.clear();
    scope.postMessage(done);
  }, (error) => scope.postMessage({ type: "done", ok: false, error: `Script failed: the sandbox broke: ${error}`, broken: true }));
};
