/** Loopback listener, browser and private files for logins, on Deno. */
import type { LoginSupport, LoopbackServer } from "./types.ts";
import { browserCommand, operatingSystem, temporaryPath } from "./login-shared.ts";

const os = operatingSystem(Deno.build.os);

export const loginSupport: LoginSupport = {
  os,
  async serve(handler, port) {
    const listen = (on: number) =>
      new Promise<LoopbackServer>((resolve) => {
        const server = Deno.serve({
          hostname: "127.0.0.1",
          port: on,
          onListen: ({ port }) => resolve({ url: `http://127.0.0.1:${port}`, close: () => server.shutdown() }),
        }, handler);
      });
    try {
      return await listen(port ?? 0);
    } catch {
      // The port is taken (another program, another login): any free one will do.
      return await listen(0);
    }
  },
  openBrowser(url) {
    const { command, args } = browserCommand(os, url);
    try {
      const child = new Deno.Command(command, { args, stdin: "null", stdout: "null", stderr: "null" }).spawn();
      child.unref();
      child.status.catch(() => {});
    } catch {
      // No opener on this machine: the URL was printed for the user to open.
    }
  },
  async writePrivateFile(path, text) {
    const dir = path.slice(0, Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")));
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const temporary = temporaryPath(path);
    try {
      await Deno.writeTextFile(temporary, text, { mode: 0o600, createNew: true });
      if (os !== "windows") await Deno.chmod(temporary, 0o600);
      await Deno.rename(temporary, path);
    } catch (error) {
      await Deno.remove(temporary).catch(() => {});
      throw error;
    }
  },
};
