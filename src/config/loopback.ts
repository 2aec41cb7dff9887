/**
 * Loopback, as a host to bind to and as the host of a browser's Origin: `localhost`, 127.0.0.0/8
 * and `::1`. Only the same machine reaches those, so they need no token and no origin list.
 */

const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** A host name or address, with or without IPv6 brackets. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return bare === "localhost" || bare === "::1" || bare === "0:0:0:0:0:0:0:1" || IPV4_LOOPBACK.test(bare);
}
