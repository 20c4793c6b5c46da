/**
 * Messages no JSON-RPC 2.0 peer should send, each with the error and id the server must answer
 * (-32700 for text that is not JSON, -32600 for JSON that is not one message): the same on stdio
 * (__tests__/protocol/stdio-limits.test.ts) and over HTTP (__tests__/http/limits.test.ts), since
 * both transports check a message with src/protocol/messages.ts.
 */
import { expect } from "@jest/globals";

export const ping = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`;

export const MALFORMED: [what: string, message: string | Buffer, code: number, id: unknown][] = [
  ["invalid JSON", "{not json", -32700, null],
  ["a NaN literal", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":NaN}}`, -32700, null],
  ["a trailing NUL", `${ping("2")}\u0000`, -32700, null],
  [
    "invalid UTF-8",
    Buffer.concat([
      Buffer.from(`{"jsonrpc":"2.0","id":"`),
      Buffer.from([0xff]),
      Buffer.from(`","method":"ping"}`),
    ]),
    -32700,
    null,
  ],
  ["a batch", `[${ping("3")},${ping("4")}]`, -32600, null],
  ["an id above 2^53", ping("9007199254740993"), -32600, null],
  ["an id below -2^53", ping("-9007199254740993"), -32600, null],
  ["a fractional id", ping("1.5"), -32600, null],
  ["a number", "42", -32600, null],
  ["null", "null", -32600, null],
  ["a request whose method is not a string", `{"jsonrpc":"2.0","id":5,"method":7}`, -32600, 5],
  ["a request without jsonrpc 2.0", `{"jsonrpc":"1.0","id":"a","method":"ping"}`, -32600, "a"],
  [
    "a notification with an unknown field",
    `{"jsonrpc":"2.0","method":"x","extra":1}`,
    -32600,
    null,
  ],
  ["a malformed response", `{"jsonrpc":"2.0","id":6,"result":7}`, -32600, null],
];

/** The JSON-RPC error answer expected for a case. */
export const refusal = (code: number, id: unknown) => ({
  jsonrpc: "2.0",
  id,
  error: {
    code,
    message: expect.stringMatching(code === -32700 ? /^Parse error/ : /^Invalid Request/),
  },
});
