/**
 * Unpacks a data-directory tar as PGlite's dumpDataDir writes it (ustar: regular files and
 * directories, names relative to the data directory with a leading slash): how a fresh, migrated
 * store becomes the template directory (pglite-template.ts). Done with node:fs rather than through
 * PGlite's `loadDataDir`, which copies the whole tar three times in JavaScript memory and writes it
 * through the WASM file system. Every header's checksum is verified, so a damaged tar throws.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

const BLOCK = 512;

export async function untarDataDir(tar: Uint8Array, into: string): Promise<{ files: number }> {
  const buf = Buffer.from(tar.buffer, tar.byteOffset, tar.byteLength);
  let files = 0;
  let pgVersion = false;
  const made = new Set<string>();
  const makeDir = async (dir: string) => {
    if (made.has(dir)) return;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    made.add(dir);
  };
  await makeDir(into);
  for (let at = 0; at + BLOCK <= buf.length;) {
    const header = buf.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break; // the end-of-archive blocks
    checkHeader(header, at);
    const name = entryName(header);
    const size = octal(header.subarray(124, 136));
    const type = String.fromCharCode(header[156] ?? 0);
    const body = at + BLOCK;
    if (body + size > buf.length) throw new Error(`tar entry ${name} runs past the end`);
    const path = join(into, name);
    if (type === "5") await makeDir(path);
    else if (type === "0" || type === "\0") {
      await makeDir(dirname(path));
      await writeFile(path, buf.subarray(body, body + size), { mode: 0o600 });
      files++;
      if (name === "PG_VERSION") pgVersion = true;
    } else throw new Error(`unexpected tar entry type ${JSON.stringify(type)} for ${name}`);
    at = body + Math.ceil(size / BLOCK) * BLOCK;
  }
  if (!pgVersion) throw new Error("the tar holds no PG_VERSION: not a data directory");
  return { files };
}

/** The entry's path relative to the data directory; anything that could leave it is refused. */
function entryName(header: Buffer): string {
  const name = cString(header.subarray(0, 100));
  const ustar = cString(header.subarray(257, 263)) === "ustar";
  const prefix = ustar ? cString(header.subarray(345, 500)) : "";
  const full = (prefix ? `${prefix}/${name}` : name).replace(/^\/+/, "").replace(/\/+$/, "");
  const parts = full.split("/");
  if (!full || parts.some((p) => p === "" || p === "." || p === "..")) {
    throw new Error(`unsafe tar entry name ${JSON.stringify(full)}`);
  }
  return full;
}

/** ustar's checksum: the byte sum of the header with its checksum field read as spaces. */
function checkHeader(header: Buffer, at: number): void {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (header[i] ?? 0);
  if (sum !== octal(header.subarray(148, 156))) {
    throw new Error(`tar header checksum mismatch at byte ${at}`);
  }
}

function octal(field: Buffer): number {
  const text = cString(field).trim();
  if (!/^[0-7]+$/.test(text)) throw new Error(`bad tar number ${JSON.stringify(text)}`);
  return parseInt(text, 8);
}

function cString(field: Buffer): string {
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? field.length : end).toString("utf8");
}
