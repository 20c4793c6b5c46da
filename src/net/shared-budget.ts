/**
 * One NCBI budget for every server process that shares a PostgreSQL database (DATABASE_URL):
 * replicas behind a load balancer reach NCBI from one account (API key) or one address, so
 * NCBI_MAX_RPS holds for all of them together. Each start is admitted by one statement, which
 * locks the budget row only for its own duration (no lock is ever held across a request); the
 * database's clock (clock_timestamp()) is the one time source, so replicas' clocks may disagree.
 *
 * A start is written "pending" with a bound (admission + HOLD_MS) by which it will be on the wire;
 * when undici writes it (the same moment the local limiter uses) the row is stamped with the
 * database's clock, off the request's path. A bound is an upper limit: a live replica renews it
 * while a connect is slow, a killed replica's rows simply age out (bound + window), so a replica
 * that dies mid-run costs the others at most its few pending starts, for a few seconds.
 *
 * Calls wait in one queue across replicas, first come, first served: a refused call keeps a place
 * (a row numbered in order of arrival) and is told when its turn comes, from the starts in the
 * window and the places ahead of it, so each waiter asks again once, about when it may go, instead
 * of every waiter retrying together and the fastest row lock winning. A call whose turn comes after
 * its deadline learns so at once (the limiter fails it with RATE_LIMIT naming the queue's length).
 *
 * The tables and function are created here, not by the corpus store's migrations: live tools never
 * wait for the store to open, and this state is a few rows that expire by time.
 */
import pg from "pg";
import { log } from "../log.js";

/** How long an admitted start may take to reach the wire before its replica renews its bound. */
export const HOLD_MS = 2_000;
/**
 * A waiting call's place in the queue outlives the moment its owner was told to ask again by this
 * much: a busy event loop may wake it late. A place whose owner never asks again (its replica
 * died) is dropped after it; until then it holds up the calls behind it, for at most this long.
 */
const GRACE_MS = 2_000;
/** A pending start is usually stamped within ms of its admission; past that it is polled this often. */
const PENDING_POLL_MS = 50;
/** A database that does not answer within this is treated as absent for that start (fail open). */
const QUERY_TIMEOUT_MS = 5_000;
/** After a failure the database is asked again only this much later; starts meanwhile go local. */
const RETRY_AFTER_FAILURE_MS = 10_000;
const BUDGET = "ncbi";
/** Admitted by the local limiter alone (the shared budget is unusable for now). */
const LOCAL_ONLY: Admission = { sent: () => undefined, cancel: () => undefined };

/** A start admitted by the shared budget. Both methods are idempotent and never throw. */
export interface Admission {
  /** The request is on the wire now: stamp the start with the database's clock. */
  sent(): void;
  /** The request never went out: give the start back. */
  cancel(): void;
}

/** Not yet: the calls ahead in the shared queue take the next starts. */
export interface Refusal {
  /** When to ask again: the estimated moment this call's turn comes, in ms from now. */
  waitMs: number;
  /** Calls of every replica waiting ahead of this one. */
  ahead: number;
  /** Calls of every replica waiting, this one included. */
  queued: number;
}

/**
 * One call's place in the shared queue, kept by the caller from its first `admit` until it is
 * admitted or gives up (`leave`). Calls are admitted first come, first served across replicas.
 */
export interface Place {
  /** The place's number, once it has one (from `reserve` or the first refusal). */
  ticket?: string;
  /** A number taken when the call arrived, before it could ask (it waited for a local slot). */
  reserved?: Promise<string | undefined>;
}

export interface SharedBudget {
  /** Admits the call holding `place` under `maxRps` per `windowMs` when its turn has come. */
  admit(maxRps: number, windowMs: number, place?: Place): Promise<Admission | Refusal>;
  /**
   * A number in the queue's order of arrival for a call that cannot ask yet; it holds nobody up
   * until the call asks with it. Undefined when the database cannot be used.
   */
  reserve(): Promise<string | undefined>;
  /** The call gives up waiting (aborted, or its deadline comes first): its place goes. */
  leave(place: Place): void;
  close(): Promise<void>;
}

/**
 * The moment the call `ahead` places behind the head may start, in ms from now, when `leaves`
 * are the ms until each start in the window leaves it (ascending) and at most `max` fit in one.
 * The free places go to the first calls at once and leave a window later; after that each start
 * leaving makes room for the next call, whose own start leaves one window after it.
 */
export function turnInMs(ahead: number, leaves: readonly number[], max: number, windowMs: number) {
  const free = Math.max(0, max - leaves.length);
  if (ahead < free) return 0;
  // With more starts in the window than fit (another replica's higher ceiling), the first turn
  // comes when enough of them have left.
  const slots =
    free > 0
      ? [...leaves, ...Array<number>(free).fill(windowMs)]
      : leaves.slice(leaves.length - max);
  const k = ahead - free;
  return slots[k % max]! + Math.floor(k / max) * windowMs;
}

const SETUP = `
create table if not exists pubmed_mcp_ncbi_budget (name text primary key);
create table if not exists pubmed_mcp_ncbi_starts (
  id bigserial primary key,
  budget text not null,
  -- when the request reached NCBI (pending = false), or the latest it will (pending = true)
  at timestamptz not null,
  pending boolean not null
);
create index if not exists pubmed_mcp_ncbi_starts_budget_at on pubmed_mcp_ncbi_starts (budget, at);
-- when a pending start was admitted: it is expected on the wire about then
alter table pubmed_mcp_ncbi_starts add column if not exists admitted timestamptz;
-- the calls waiting for a start, in order of arrival; a place lapses when its owner stops asking
create table if not exists pubmed_mcp_ncbi_queue (
  id bigserial primary key,
  budget text not null,
  expires timestamptz not null
);
create index if not exists pubmed_mcp_ncbi_queue_budget_id on pubmed_mcp_ncbi_queue (budget, id);
create or replace function pubmed_mcp_ncbi_admit_in_turn(
  p_budget text, p_max int, p_window_ms double precision, p_hold_ms double precision,
  p_ticket bigint, p_grace_ms double precision, p_pending_poll_ms double precision
) returns table (start_id bigint, ticket bigint, ahead int, queued int, leaves_ms double precision[])
language plpgsql as $$
declare
  win interval := make_interval(secs => p_window_ms / 1000);
  hold interval := make_interval(secs => p_hold_ms / 1000);
  t timestamptz;
  tk bigint := p_ticket;
  n int;
  a int;
  q int;
begin
  -- The row lock serialises admissions; each statement below sees what the previous holder wrote.
  perform 1 from pubmed_mcp_ncbi_budget where name = p_budget for update;
  if not found then
    insert into pubmed_mcp_ncbi_budget (name) values (p_budget) on conflict do nothing;
    perform 1 from pubmed_mcp_ncbi_budget where name = p_budget for update;
  end if;
  t := clock_timestamp();
  delete from pubmed_mcp_ncbi_starts s where s.budget = p_budget and s.at <= t - win;
  delete from pubmed_mcp_ncbi_queue w where w.budget = p_budget and w.expires <= t;
  if tk is null then
    insert into pubmed_mcp_ncbi_queue (budget, expires) values (p_budget, t) returning id into tk;
  else
    -- An owner that woke after its place lapsed is alive after all: it keeps its turn.
    insert into pubmed_mcp_ncbi_queue (id, budget, expires) values (tk, p_budget, t)
      on conflict (id) do nothing;
  end if;
  select count(*) into n from pubmed_mcp_ncbi_starts s where s.budget = p_budget;
  select count(*) filter (where w.id < tk), count(*) into a, q
    from pubmed_mcp_ncbi_queue w where w.budget = p_budget;
  if a < p_max - n then
    delete from pubmed_mcp_ncbi_queue w where w.id = tk;
    return query
      insert into pubmed_mcp_ncbi_starts (budget, at, pending, admitted)
      values (p_budget, t + hold, true, t)
      returning id, tk, a, q, null::double precision[];
    return;
  end if;
  -- Asked again by its turn (at most a window per max calls ahead, and one more), or it lapses.
  update pubmed_mcp_ncbi_queue w
    set expires = t + make_interval(secs => ((a / p_max + 1) * p_window_ms + p_grace_ms) / 1000)
    where w.id = tk;
  -- When each start leaves the window: a pending one is expected on the wire at its admission.
  return query select null::bigint, tk, a, q, array(
    select case
      when s.pending then greatest(
        extract(epoch from (coalesce(s.admitted, s.at - hold) + win - t)) * 1000, p_pending_poll_ms)
      else extract(epoch from (s.at + win - t)) * 1000
    end::double precision as ms
    from pubmed_mcp_ncbi_starts s where s.budget = p_budget order by ms);
end $$;
`;

/** A budget in the database at `databaseUrl`, on a pool of its own (two connections). */
export function postgresBudget(databaseUrl: string): SharedBudget {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 2,
    connectionTimeoutMillis: QUERY_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
  });
  pool.on("error", (err) =>
    log.warn("NCBI budget: idle database client error", { message: err.message }),
  );
  let ready: Promise<void> | undefined;
  let lastWarning = 0;
  let downUntil = 0;

  const setup = async () => {
    const client = await pool.connect();
    try {
      await client.query("begin");
      // Replicas starting together would race on the DDL; the lock makes them take turns.
      await client.query("select pg_advisory_xact_lock(hashtext('pubmed_mcp_ncbi_budget'))");
      await client.query(SETUP);
      await client.query("commit");
    } catch (err) {
      await client.query("rollback").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  };

  /** The tables and function, made once per process (again after a failed attempt). */
  const prepared = () =>
    (ready ??= setup().catch((err: unknown) => {
      ready = undefined;
      throw err;
    }));

  /** The budget fails open: NCBI's own 429 and the cool-down remain the backstop. */
  const warn = (what: string, err: unknown) => {
    if (Date.now() - lastWarning < 60_000) return;
    lastWarning = Date.now();
    log.warn(`NCBI budget: ${what}; this process uses its own limit only until it works again`, {
      message: err instanceof Error ? err.message : String(err),
    });
  };

  const fireAndForget = (what: string, text: string, values: unknown[]) => {
    pool.query(text, values).catch((err: unknown) => warn(what, err));
  };

  return {
    async admit(maxRps, windowMs, place = {}) {
      // A database that just failed would make every start wait for its timeout; go local a while.
      if (performance.now() < downUntil) return LOCAL_ONLY;
      try {
        await prepared();
        const { rows } = await pool.query<{
          start_id: string | null;
          ticket: string;
          ahead: number;
          queued: number;
          leaves_ms: number[] | null;
        }>("select * from pubmed_mcp_ncbi_admit_in_turn($1, $2, $3, $4, $5, $6, $7)", [
          BUDGET,
          maxRps,
          windowMs,
          HOLD_MS,
          place.ticket ?? null,
          GRACE_MS,
          PENDING_POLL_MS,
        ]);
        const row = rows[0]!;
        if (row.start_id !== null) {
          delete place.ticket;
          return admission(row.start_id);
        }
        place.ticket = row.ticket;
        const waitMs = turnInMs(row.ahead, row.leaves_ms ?? [], maxRps, windowMs);
        return { waitMs: Math.max(1, waitMs), ahead: row.ahead, queued: row.queued };
      } catch (err) {
        downUntil = performance.now() + RETRY_AFTER_FAILURE_MS;
        warn("the shared budget in DATABASE_URL is not usable", err);
        return LOCAL_ONLY;
      }
    },
    async reserve() {
      if (performance.now() < downUntil) return undefined;
      try {
        await prepared();
        const { rows } = await pool.query<{ id: string }>(
          "select nextval(pg_get_serial_sequence('pubmed_mcp_ncbi_queue', 'id'))::text as id",
        );
        return rows[0]?.id;
      } catch (err) {
        warn("numbering a waiting call", err);
        return undefined;
      }
    },
    leave(place) {
      const ticket = place.ticket;
      if (ticket === undefined) return;
      delete place.ticket;
      fireAndForget("leaving the queue", "delete from pubmed_mcp_ncbi_queue where id = $1", [
        ticket,
      ]);
    },
    close: () => pool.end(),
  };

  function admission(id: string): Admission {
    let settled = false;
    // While the request waits for a slow connect, keep its bound ahead of the database's clock.
    const renew = setInterval(
      () =>
        fireAndForget(
          "renewing a pending start",
          "update pubmed_mcp_ncbi_starts set at = greatest(at, clock_timestamp() + make_interval(secs => $2::float8 / 1000)) where id = $1 and pending",
          [id, HOLD_MS],
        ),
      HOLD_MS / 2,
    );
    renew.unref();
    const settle = () => {
      if (settled) return false;
      settled = true;
      clearInterval(renew);
      return true;
    };
    return {
      sent: () => {
        if (!settle()) return;
        // Stamped when the database runs it: never earlier than the request reached the wire.
        fireAndForget(
          "stamping a start",
          "update pubmed_mcp_ncbi_starts set at = clock_timestamp(), pending = false where id = $1",
          [id],
        );
      },
      cancel: () => {
        if (!settle()) return;
        fireAndForget(
          "giving back a start",
          "delete from pubmed_mcp_ncbi_starts where id = $1 and pending",
          [id],
        );
      },
    };
  }
}
