import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { StoreError } from "../../src/errors.js";
import { acquireDirLock, LOCK_FILE, type DirLock } from "../../src/store/file-lock.js";

describe("the data-directory lock file", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "pmcp-lock-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function race(n: number): Promise<{ won: DirLock[]; lost: unknown[] }> {
    const settled = await Promise.allSettled(Array.from({ length: n }, () => acquireDirLock(dir)));
    return {
      won: settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : [])),
      lost: settled.flatMap((s) => (s.status === "rejected" ? [s.reason as unknown] : [])),
    };
  }

  it("grants exactly one of many concurrent openers", async () => {
    const { won, lost } = await race(12);
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(11);
    expect(lost.every((e) => e instanceof StoreError)).toBe(true);
    await won[0]?.release();
    // No temporary or stale files are left behind.
    expect(await readdir(dir)).toEqual([]);
  });

  it("grants exactly one of many openers racing over a stale lock", async () => {
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    await writeFile(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: dead, hostname: hostname(), startedAt: "2020-01-01T00:00:00Z" }),
    );
    const { won, lost } = await race(8);
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(7);
    const info = JSON.parse(await readFile(join(dir, LOCK_FILE), "utf8")) as { pid: number };
    expect(info.pid).toBe(process.pid);
    await won[0]?.release();
  });

  it("does not remove a lock it no longer owns", async () => {
    const lock = await acquireDirLock(dir);
    const other = JSON.stringify({ pid: 1, hostname: "elsewhere", startedAt: "x", token: "t" });
    await writeFile(join(dir, LOCK_FILE), other);
    await lock.release();
    expect(await readFile(join(dir, LOCK_FILE), "utf8")).toBe(other);
  });

  it("refuses an unreadable lock file with advice instead of guessing", async () => {
    await writeFile(join(dir, LOCK_FILE), "garbage");
    await expect(acquireDirLock(dir)).rejects.toThrow(/unreadable lock file/);
  });
});
