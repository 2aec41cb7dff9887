/** Loopback listener, browser and private files for logins, on Bun (node:fs for file modes). */
import type { LoginSupport } from "./types.ts";
import { browserCommand, operatingSystem, temporaryPath } from "./login-shared.ts";

const os = operatingSystem(process.platform);

export const loginSupport: LoginSupport = {
  os,
  serve(handler, port) {
    const listen = (on: number) => Bun.serve({ hostname: "127.0.0.1", port: on, fetch: handler });
    let server: ReturnType<typeof listen>;
    try {
      server = listen(port ?? 0);
    } catch {
      // The port is taken (another program, another login): any free one will do.
      server = listen(0);
    }
    return Promise.resolve({
      url: `http://127.0.0.1:${server.port}`,
      close: async () => {
        await server.stop(true);
      },
    });
  },
  openBrowser(url) {
    const { command, args } = browserCommand(os, url);
    try {
      Bun.spawn([command, ...args], { stdio: ["ignore", "ignore", "ignore"] }).unref();
    } catch {
      // No opener on this machine: the URL was printed for the user to open.
    }
  },
  async writePrivateFile(path, text) {
    const { chmod, mkdir, rename, rm, writeFile } = await import("node:fs/promises");
    const dir = path.slice(0, Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")));
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const temporary = temporaryPath(path);
    try {
      await writeFile(temporary, text, { mode: 0o600 });
      // mode applies only when the file is created; the temporary name is new, but be sure.
      await chmod(temporary, 0o600);
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  },
};
