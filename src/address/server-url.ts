/** A remote server's address as requests use it: without the user:password part. */
import type { RemoteServerConfig } from "../config/index.ts";

/** The URL requests go to, and the key of the server's stored login: without user:password. */
export function serverUrlOf(config: RemoteServerConfig): string {
  const url = new URL(config.url);
  url.username = "";
  url.password = "";
  return url.href;
}
