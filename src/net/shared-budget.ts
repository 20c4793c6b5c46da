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
 * The tables and function are created here, not by the corpus store's migrations: live tools never
 * wait for the store to open, and this state is a few rows that expire by time.
 */
import pg from "pg";
import { log } from "../log.js";

/** How long an admitted start may take to reach the wire before its replica renews its bound. */
export const HOLD_MS = 2_000;
/** A refusal whose limiting start is still pending is re-asked this soon (it is usually stamped within ms). */
const PENDING_RETRY_MS = 20;
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

export interface SharedBudget {
  /** Admits one start under `maxRps` per `windowMs`, or says how many ms to wait before asking again. */
  admit(maxRps: number, windowMs: number): Promise<Admission | { waitMs: number }>;
  close(): Promise<void>;
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
create or replace function pubmed_mcp_ncbi_admit(
  p_budget text, p_max int, p_window_ms double precision, p_hold_ms double precision
) returns table (start_id bigint, wait_ms double precision, limited_by_pending boolean)
language plpgsql as $$
declare
  win interval := make_interval(secs => p_window_ms / 1000);
  t timestamptz;
  n int;
begin
  -- The row lock serialises admissions; each statement below sees what the previous holder wrote.
  perform 1 from pubmed_mcp_ncbi_budget where name = p_budget for update;
  if not found then
    insert into pubmed_mcp_ncbi_budget (name) values (p_budget) on conflict do nothing;
    perform 1 from pubmed_mcp_ncbi_budget where name = p_budget for update;
  end if;
  t := clock_timestamp();
  delete from pubmed_mcp_ncbi_starts s where s.budget = p_budget and s.at <= t - win;
  select count(*) into n from pubmed_mcp_ncbi_starts s where s.budget = p_budget;
  if n >= p_max then
    -- The next start may go when the (n - max + 1)-th oldest leaves the window.
    return query
      select null::bigint, (extract(epoch from (s.at + win - t)) * 1000)::double precision, s.pending
      from pubmed_mcp_ncbi_starts s where s.budget = p_budget
      order by s.at offset n - p_max limit 1;
    return;
  end if;
  return query
    insert into pubmed_mcp_ncbi_starts (budget, at, pending)
    values (p_budget, t + make_interval(secs => p_hold_ms / 1000), true)
    returning id, 0::double precision, false;
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
    async admit(maxRps, windowMs) {
      // A database that just failed would make every start wait for its timeout; go local a while.
      if (performance.now() < downUntil) return LOCAL_ONLY;
      try {
        ready ??= setup().catch((err: unknown) => {
          ready = undefined;
          throw err;
        });
        await ready;
        const { rows } = await pool.query<{
          start_id: string | null;
          wait_ms: number;
          limited_by_pending: boolean;
        }>("select * from pubmed_mcp_ncbi_admit($1, $2, $3, $4)", [
          BUDGET,
          maxRps,
          windowMs,
          HOLD_MS,
        ]);
        const row = rows[0];
        if (!row) return { waitMs: PENDING_RETRY_MS };
        if (row.start_id === null) {
          const wait = Math.max(1, row.wait_ms);
          return { waitMs: row.limited_by_pending ? Math.min(wait, PENDING_RETRY_MS) : wait };
        }
        return admission(row.start_id);
      } catch (err) {
        downUntil = performance.now() + RETRY_AFTER_FAILURE_MS;
        warn("the shared budget in DATABASE_URL is not usable", err);
        return LOCAL_ONLY;
      }
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
