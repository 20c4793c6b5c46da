/**
 * Oversized and malformed messages for the edges section, as bytes no SDK client would send,
 * on stdio (one line each) and as Streamable HTTP POST bodies within a session. After each, the
 * same session must still answer a ping.
 */
const MiB = 1024 * 1024;

export interface RawMessage {
  name: string;
  body: Buffer;
  /** What the transports should answer (JSON-RPC code; over HTTP also the status). */
  expect: string;
}

const call = (id: string, args: string) =>
  `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"pubmed_search","arguments":${args}}}`;

/** A tools/call whose query holds `inner` as its bytes are. */
function framed(id: string, inner: Buffer): Buffer {
  const [head = "", tail = ""] = call(id, `{"query":"@FILL@"}`).split("@FILL@");
  return Buffer.concat([Buffer.from(head), inner, Buffer.from(tail)]);
}

/** A tools/call of `bytes` bytes in all (a long query). */
function sized(id: string, bytes: number): Buffer {
  const frame = framed(id, Buffer.alloc(0)).length;
  return framed(id, Buffer.alloc(Math.max(0, bytes - frame), "a"));
}

/** The messages; `big` adds the 64 MiB one (not at smoke size). */
export function rawMessages(opts: { big: boolean; lineLimit: number }): RawMessage[] {
  return [
    { name: "12 MiB line", body: sized("raw-12m", 12 * MiB), expect: "-32600 (413 over HTTP)" },
    ...(opts.big
      ? [{ name: "64 MiB line", body: sized("raw-64m", 64 * MiB), expect: "-32600 (413)" }]
      : []),
    {
      name: "just under the stdio line limit",
      body: sized("raw-under", opts.lineLimit - 1024),
      expect: "VALIDATION (413 over HTTP)",
    },
    {
      name: "invalid JSON",
      body: Buffer.from(`{"jsonrpc":"2.0","id":"raw-trunc","method":"ping"`),
      expect: "-32700",
    },
    {
      name: "NaN literal",
      body: Buffer.from(call("raw-nan", `{"query":"asthma","maxResults":NaN}`)),
      expect: "-32700",
    },
    {
      name: "batch",
      body: Buffer.from(
        `[{"jsonrpc":"2.0","id":"raw-b1","method":"ping"},{"jsonrpc":"2.0","id":"raw-b2","method":"ping"}]`,
      ),
      expect: "-32600",
    },
    {
      name: "id above 2^53",
      body: Buffer.from(`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`),
      expect: "-32600",
    },
    {
      name: "trailing NUL",
      body: Buffer.from(`{"jsonrpc":"2.0","id":"raw-nul","method":"ping"}\u0000`),
      expect: "-32700",
    },
    {
      name: "invalid UTF-8",
      body: framed("raw-utf8", Buffer.from([0x61, 0xff, 0xfe])),
      expect: "-32700",
    },
  ];
}
