/**
 * PGlite behind node-postgres, its messages carried together as a socket carries them. PGlite's
 * adapter (`@electric-sql/pglite/node-postgres`) hands each protocol message to PGlite by itself:
 * a statement's Parse, Bind, Describe, Execute and Sync were five calls into WebAssembly, five
 * parses of the output and five awaited file syncs. node-postgres sends them back to back without
 * waiting for a reply, so nothing changes if the first four wait here for the Sync (or a Flush)
 * and all five go in one call: PostgreSQL reads a buffer of messages as it reads a socket, and
 * its replies, an error and ReadyForQuery included, come in the same order. One caller's
 * `rag_search` through the server answered about 7 % faster (embedded store, 10,000 chunks).
 */
import type { PGlite } from "@electric-sql/pglite";

/**
 * Messages whose replies wait for a Sync or Flush anyway: Parse, Bind, Describe, Execute and Close
 * (type bytes "P", "B", "D", "E", "C").
 */
const HELD = new Set([0x50, 0x42, 0x44, 0x45, 0x43]);

/** `pglite` for createPgConfig: the same instance, with its protocol messages pipelined. */
export function pipelined(pglite: PGlite): PGlite {
  let held: Uint8Array[] = [];
  const execProtocolStream: PGlite["execProtocolStream"] = (message, opts) => {
    if (HELD.has(message[0] ?? 0)) {
      held.push(message);
      return Promise.resolve([]);
    }
    const all = held.length === 0 ? message : Buffer.concat([...held, message]);
    held = [];
    return pglite.execProtocolStream(all, opts);
  };
  return new Proxy(pglite, {
    get(target, key) {
      if (key === "execProtocolStream") return execProtocolStream;
      const value: unknown = Reflect.get(target, key, target);
      // PGlite's methods read private fields: they run on the instance, not on this proxy.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
