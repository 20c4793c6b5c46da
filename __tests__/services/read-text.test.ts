/**
 * readText and readBytes (the polite client's reply readers): the same text as `res.text()` and
 * the same bytes as `res.arrayBuffer()`, read from a loopback server that sends the body in
 * pieces cut inside multi-byte characters.
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WHOLE_TEXT, readBytes, readText } from "../../src/net/polite-client.js";

const BODIES: Record<string, Buffer> = {
  // β is two bytes, 😀 four: every cut below lands inside one of them somewhere.
  utf8: Buffer.from("<a>β-lactam 😀 “quoted” ".repeat(300) + "</a>", "utf8"),
  bom: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("<a>ü</a>", "utf8")]),
  malformed: Buffer.from([0x3c, 0x61, 0x3e, 0xc3, 0x28, 0xff, 0xe2, 0x82, 0x3c, 0x2f, 0x61, 0x3e]),
  empty: Buffer.alloc(0),
  // Over WHOLE_TEXT: readBytes checks it by head and tail.
  long: Buffer.from(`<a>${"β-lactam 😀 ".repeat(6000)}</a>`, "utf8"),
};

/**
 * The sizes each body is cut at. The long body is cut only in large pieces: one byte at a time it
 * is some 100,000 chunks through the HTTP stack, read twice, minutes on a busy machine; the short
 * bodies cover the small cuts.
 */
function cuts(name: string, small: number[]): number[] {
  return name === "long" ? [0, 1021, 4099] : [0, ...small, 4099];
}

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const body = BODIES[url.pathname.slice(1)] ?? Buffer.alloc(0);
    const cut = Number(url.searchParams.get("cut") ?? 0);
    res.writeHead(200, { "content-type": "application/xml" });
    void (async () => {
      // Pieces of `cut` bytes, each flushed on its own turn so they arrive as separate chunks.
      for (let at = 0; cut > 0 && at < body.length; at += cut) {
        res.write(body.subarray(at, at + cut));
        await new Promise((r) => setImmediate(r));
      }
      res.end(cut > 0 ? undefined : body);
    })();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

describe("readText", () => {
  test.each(Object.keys(BODIES).flatMap((name) => cuts(name, [1, 3, 7]).map((cut) => [name, cut])))(
    "%s, cut every %i bytes: the text res.text() gives",
    async (name, cut) => {
      const url = `${base}/${name}?cut=${cut}`;
      const expected = await (await fetch(url)).text();
      const text = await readText(await fetch(url));
      expect(text).toBe(expected);
      if (name === "utf8") expect(text).toContain("β-lactam 😀");
      if (name === "bom") expect(text).toBe("<a>ü</a>");
      if (name === "malformed") expect(text).toContain("\ufffd");
    },
  );

  test("a reply without a body is empty", async () => {
    expect(await readText(new Response(null, { status: 204 }))).toBe("");
  });
});

describe("readBytes", () => {
  test.each(Object.keys(BODIES).flatMap((name) => cuts(name, [7]).map((cut) => [name, cut])))(
    "%s, cut every %i bytes: the bytes sent, in shared memory of their own",
    async (name, cut) => {
      const url = `${base}/${name}?cut=${cut}`;
      const read = await readBytes(await fetch(url));
      expect(Buffer.from(read.bytes).equals(BODIES[name] ?? Buffer.alloc(1))).toBe(true);
      expect(read.bytes.buffer.byteLength).toBe(read.bytes.byteLength);
      expect(read.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
      const text = await (await fetch(url)).text();
      if (read.bytes.byteLength <= WHOLE_TEXT) {
        expect(read.body).toBe(text);
        expect(read.partial).toBeUndefined();
      } else {
        expect(read.partial).toBe(true);
        expect(text.startsWith(read.body.slice(0, 1000))).toBe(true);
        expect(read.body.endsWith(text.slice(-1000))).toBe(true);
        expect(read.body.length).toBeLessThan(WHOLE_TEXT);
      }
    },
  );
});
