/**
 * PGlite behind node-postgres, its messages carried together as a socket carries them and its
 * replies read by node-postgres's own protocol parser.
 *
 * PGlite's adapter (`@electric-sql/pglite/node-postgres`) hands each protocol message to PGlite by
 * itself: a statement's Parse, Bind, Describe, Execute and Sync were five calls into WebAssembly,
 * five parses of the output and five awaited file syncs. node-postgres sends them back to back
 * without waiting for a reply, so nothing changes if the first four wait here for the Sync (or a
 * Flush) and all five go in one call: PostgreSQL reads a buffer of messages as it reads a socket,
 * and its replies, an error and ReadyForQuery included, come in the same order. One caller's
 * `rag_search` through the server answered about 7 % faster (embedded store, 10,000 chunks).
 *
 * The replies are then parsed by pg-protocol, the parser node-postgres uses on a socket (its
 * messages are what its client expects), instead of PGlite's own, which copies every field of
 * every row into an ArrayBuffer of its own before decoding it: about 0.2 ms of the corpus
 * worker's time for each `rag_search`'s 10-row payload read (bench/JOURNAL.md, late night of
 * 2026-11-28).
 *
 * `encodeBeforeBind` keeps the session usable when a statement's parameter cannot be encoded
 * (see there).
 */
import type { PGlite } from "@electric-sql/pglite";
import { Parser } from "pg-protocol/dist/parser.js";

/**
 * Messages whose replies wait for a Sync or Flush anyway: Parse, Bind, Describe, Execute and Close
 * (type bytes "P", "B", "D", "E", "C").
 */
const HELD = new Set([0x50, 0x42, 0x44, 0x45, 0x43]);

/**
 * A Terminate message ("X"): PGlite returns at once without running it (execProtocolRawSync), so
 * handing it to execProtocol only resets PGlite's output handler (see replies).
 */
const TERMINATE = new Uint8Array([0x58, 0, 0, 0, 4]);

type Replies = Awaited<ReturnType<PGlite["execProtocolStream"]>>;

/** `pglite` for createPgConfig: the same instance, its messages pipelined, its replies parsed here. */
export function pipelined(pglite: PGlite): PGlite {
  let held: Uint8Array[] = [];
  const execProtocolStream: PGlite["execProtocolStream"] = (message, opts) => {
    if (HELD.has(message[0] ?? 0)) {
      held.push(message);
      return Promise.resolve([]);
    }
    const all = held.length === 0 ? message : Buffer.concat([...held, message]);
    held = [];
    return replies(pglite, all, opts?.syncToFs ?? true);
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

/**
 * Runs `message` and returns PostgreSQL's replies as node-postgres's parser reads them, as
 * execProtocolStream would return them with `throwOnError: false` (the adapter's setting).
 */
async function replies(pglite: PGlite, message: Uint8Array, syncToFs: boolean): Promise<Replies> {
  // Copies: PGlite hands out views of its WebAssembly memory, which the next write reuses. Parsed
  // once the call is over, so that nothing throws from inside PostgreSQL's loop.
  const output: Buffer[] = [];
  try {
    await pglite.execProtocolRawStream(message, {
      syncToFs: false,
      onRawData: (data) => output.push(Buffer.from(data)),
    });
  } finally {
    // PGlite 0.5 leaves the raw stream's handler installed, where its own execProtocol (close()
    // uses it) would send its output; execProtocol itself puts the default one back after.
    await pglite.execProtocol(TERMINATE, { syncToFs: false });
  }
  if (syncToFs) await pglite.syncToFs();
  const parsed: unknown[] = [];
  const parser = new Parser();
  for (const chunk of output) parser.parse(chunk, (m) => parsed.push(m));
  return parsed as Replies;
}

/** What node-postgres hands a connection's bind(): the values and how each is encoded. */
interface BindConfig {
  values?: unknown[];
  valueMapper?: (value: unknown, index: number) => unknown;
  [key: string]: unknown;
}

/**
 * `config` (createPgConfig's) with its connection's Bind encoding the parameters before PGlite's
 * serializer runs. That serializer (PGlite's copy of pg-protocol's) writes the Bind's head and
 * then each value into buffers it reuses; when node-postgres's encoder throws for a value (a
 * `toPostgres` that throws, say), what it wrote stays there and goes out in front of the next
 * messages: node-postgres's Close and Sync after the failure, then the next statement, arrive
 * malformed. In a transaction the ROLLBACK is among them, so the one session stayed in an aborted
 * transaction and every later statement failed. Encoded first, a throw leaves the buffers empty,
 * and node-postgres closes the statement and goes on as on a socket.
 */
export function encodeBeforeBind<C extends { connection: { bind(config: BindConfig): void } }>(
  config: C,
): C {
  const { connection } = config;
  const bind = connection.bind.bind(connection);
  connection.bind = (opts: BindConfig) => {
    const { valueMapper, values } = opts;
    if (!valueMapper || !values) return bind(opts);
    return bind({
      ...opts,
      values: values.map((v, i) => valueMapper(v, i)),
      valueMapper: undefined,
    });
  };
  return config;
}
