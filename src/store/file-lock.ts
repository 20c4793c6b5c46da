/**
 * An exclusive lock on the embedded store's directory. PGlite has no cross-process locking, and
 * two processes writing one data directory corrupt it, so the first opener writes
 * <dir>/pubmed-mcp.lock and everyone else is refused until it is released or its holder dies.
 *
 * The lock file is written under a temporary name and hard-linked into place, so a reader never
 * sees a half-written file and link(2) fails atomically when the lock exists.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, unlinkSync } from "node:fs";
import {
  link,
  open,
  readFile,
  rename,
  stat,
  unlink,
  writeFile,
  type FileHandle,
} from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { StoreError } from "../errors.js";
import { log } from "../log.js";

export const LOCK_FILE = "pubmed-mcp.lock";

interface LockInfo {
  pid: number;
  hostname: string;
  startedAt: string;
  token: string;
}

export interface DirLock {
  readonly path: string;
  release(): Promise<void>;
}

function parse(text: string): LockInfo | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    if (typeof v.pid === "number" && typeof v.hostname === "string") {
      return {
        pid: v.pid,
        hostname: v.hostname,
        startedAt: String(v.startedAt ?? "?"),
        token: String(v.token ?? ""),
      };
    }
  } catch {
    // fall through: unreadable
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the pid exists but belongs to another user — still alive.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function heldError(dir: string, holder: LockInfo): StoreError {
  const details = { holderPid: holder.pid, holderHost: holder.hostname, since: holder.startedAt };
  if (holder.pid === process.pid && holder.hostname === hostname()) {
    return new StoreError(
      `The embedded store at ${dir} is already open in this process (pid ${holder.pid}); close it first.`,
      details,
    );
  }
  return new StoreError(
    `The embedded store at ${dir} is in use by another pubmed-mcp process (pid ${holder.pid} on ${holder.hostname}, since ${holder.startedAt}). ` +
      "Stop it, point PUBMED_MCP_DATA_DIR elsewhere, or set DATABASE_URL. " +
      `If no such process is running, delete ${join(dir, LOCK_FILE)}.`,
    details,
  );
}

/** Takes the lock or throws StoreError naming the live holder. Stale locks (dead pid, same host) are taken over. */
export async function acquireDirLock(dir: string): Promise<DirLock> {
  const path = join(dir, LOCK_FILE);
  const me: LockInfo = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    token: randomUUID(),
  };
  const tmp = `${path}.${me.token}`;
  await writeFile(tmp, JSON.stringify(me));
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        await link(tmp, path);
        return makeLock(path, me.token);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      const holder = await readHolder(dir, path);
      if (!holder) continue; // released between link and read
      if (isLive(holder)) throw heldError(dir, holder);
      if (await takeOverStale(dir, path, tmp)) return makeLock(path, me.token);
    }
    throw new StoreError(`Could not lock the embedded store at ${dir}: the lock kept changing.`);
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/** The current holder, undefined when the lock vanished; throws on a foreign/corrupt file. */
async function readHolder(dir: string, path: string): Promise<LockInfo | undefined> {
  const text = await readFile(path, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  const holder = parse(text);
  if (!holder) {
    throw new StoreError(
      `The embedded store at ${dir} has an unreadable lock file. If no pubmed-mcp process uses it, delete ${path}.`,
    );
  }
  return holder;
}

/** Another host's pid cannot be checked, so a lock from elsewhere always counts as live. */
const isLive = (h: LockInfo): boolean => h.hostname !== hostname() || isAlive(h.pid);

/** A takeover holds the side lock for milliseconds; one this old was left by a crash. */
const SIDE_LOCK_STALE_MS = 10_000;

/**
 * Replaces a stale lock by rename(2) over it, which is atomic: the lock path is never vacant, so
 * a plain link() opener cannot slip in and end up sharing the store. Stale-takers serialise on a
 * side lock and re-check the holder under it. Returns false when the caller should retry.
 */
async function takeOverStale(dir: string, path: string, tmp: string): Promise<boolean> {
  const side = `${path}.takeover`;
  let handle: FileHandle;
  try {
    handle = await open(side, "wx");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const st = await stat(side).catch(() => undefined);
    if (st && Date.now() - st.mtimeMs > SIDE_LOCK_STALE_MS) await unlink(side).catch(() => {});
    await new Promise((r) => setTimeout(r, 20));
    return false;
  }
  try {
    const holder = await readHolder(dir, path);
    if (!holder) return false;
    if (isLive(holder)) throw heldError(dir, holder);
    await rename(tmp, path);
    log.warn("took over a stale embedded-store lock", { dir, stale: holder });
    return true;
  } finally {
    await handle.close();
    await unlink(side).catch(() => undefined);
  }
}

function makeLock(path: string, token: string): DirLock {
  const ours = () => {
    try {
      return parse(readFileSync(path, "utf8"))?.token === token;
    } catch {
      return false;
    }
  };
  // Best effort for a normal exit without close(); a killed process leaves a stale lock instead.
  const onExit = () => {
    if (existsSync(path) && ours()) unlinkSync(path);
  };
  process.once("exit", onExit);
  let released = false;
  return {
    path,
    async release() {
      if (released) return;
      released = true;
      process.removeListener("exit", onExit);
      if (ours()) await unlink(path).catch(() => undefined);
    },
  };
}

/**
 * Drops the lock on `dir` when this process holds it: for a corpus worker thread that ended
 * without closing its store (crashed, or terminated after its close grace), whose lock names
 * this live pid and would refuse the next worker for the life of the process.
 */
export async function releaseOwnLock(dir: string): Promise<void> {
  const path = join(dir, LOCK_FILE);
  const text = await readFile(path, "utf8").catch(() => undefined);
  const holder = text === undefined ? undefined : parse(text);
  if (holder?.pid === process.pid && holder.hostname === hostname()) {
    await unlink(path).catch(() => undefined);
  }
}
