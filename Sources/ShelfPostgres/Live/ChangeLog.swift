#if PostgreSQL
    internal import Logging
    internal import PostgresNIO

    /// One row of `shelf_change_log` (migration 0008): a change to one row, logged by the
    /// database inside the transaction that made it.
    struct LoggedChange: Sendable, Hashable {
        enum Operation: String, Sendable {
            case insert = "I"
            case update = "U"
            case delete = "D"
            /// The whole table was emptied; `rowID` is nil.
            case truncate = "T"
        }

        /// An item's fields as a live query judges them; times in milliseconds since 1970.
        struct ItemFields: Sendable, Hashable {
            var owner: Int64
            var status: String
            var priority: Int64
            var createdAt: Int64
            var updatedAt: Int64
            var title: String
        }

        /// The change's place in the log: handed out in time order, committed in any order.
        let seq: Int64
        /// `users`, `items` or `saved_views`.
        let table: String
        let operation: Operation
        let rowID: Int64?
        /// An item before the change (updates and deletes); nil for other tables.
        let before: ItemFields?
        /// An item after the change (inserts and updates); nil for other tables.
        let after: ItemFields?
        /// Whether the title or the notes may have changed (true but for updates that left both).
        var textChanged = true
    }

    /// The change log's head, from one snapshot: where a reader starts.
    struct ChangeLogHead: Sendable {
        /// The highest visible seq (0 when the log is empty).
        let seq: Int64
        let prunedThrough: Int64
        let xmin: Int64
        let xmax: Int64
        /// The transactions in progress in the snapshot that may be this database's.
        let candidates: Set<Int64>
    }

    /// What one read of the change log saw, all from one snapshot.
    struct ChangeLogPage: Sendable {
        /// The snapshot's xmin: every transaction with a lower ID had ended when it was taken.
        let xmin: Int64
        /// The snapshot's xmax: the first transaction ID not yet handed out then.
        let xmax: Int64
        /// The transactions in progress in the snapshot (all databases).
        let inProgress: Set<Int64>
        /// Those of them that may be this database's (`ChangeLog.candidates`).
        let candidates: Set<Int64>
        /// The highest seq pruning has deleted through (`shelf_change_log_horizon`).
        let prunedThrough: Int64
        /// The rows in the gaps and after the seq asked for, in seq order.
        let rows: [LoggedChange]
        /// True when the read stopped at its limit: there may be more rows after the last one.
        let isFull: Bool
    }

    /// Reading `shelf_change_log`.
    enum ChangeLog {
        /// How many rows one read returns at most; a full page is followed by another read at once.
        static let pageSize = 5000

        /// Where the log is now, from one snapshot: its highest visible seq (0 when empty), the
        /// pruning horizon, and the snapshot.
        static func head(on connection: PostgresConnection) async throws -> ChangeLogHead {
            // One statement, one snapshot (pg_current_snapshot() is the statement's own).
            let rows = try await connection.query(
                """
                SELECT coalesce((SELECT max(seq) FROM shelf_change_log), 0),
                       (SELECT pruned_through FROM shelf_change_log_horizon LIMIT 1),
                       pg_snapshot_xmin(pg_current_snapshot())::text::bigint,
                       pg_snapshot_xmax(pg_current_snapshot())::text::bigint,
                       ARRAY(SELECT x::text::bigint FROM pg_snapshot_xip(pg_current_snapshot()) x),
                       ARRAY(SELECT CASE WHEN datname = current_database() THEN -(backend_xid::text::bigint)
                                               ELSE backend_xid::text::bigint END
                                   FROM pg_stat_activity WHERE backend_xid IS NOT NULL)
                """, logger: .silent)
            for try await (seq, horizon, xmin, xmax, xip, other) in rows.decode(
                (Int64, Int64?, Int64, Int64, [Int64], [Int64]).self)
            {
                return ChangeLogHead(
                    seq: seq, prunedThrough: horizon ?? 0, xmin: xmin, xmax: xmax,
                    candidates: candidates(xip, sessions: other, xmax: xmax))
            }
            throw ChangeLogMissing()
        }

        /// The transactions that may hold a seq not yet visible in a snapshot: those of `xip`
        /// that may belong to this database, and this database's sessions' transactions.
        ///
        /// `sessions` is `pg_stat_activity.backend_xid` of every session (the low 32 bits of the
        /// ID), negated for this database's sessions. A transaction of `xip` that a session of
        /// another database holds is not a candidate (prepared transactions have no session and
        /// stay candidates). This database's sessions' transactions are, whatever `xip` says:
        /// a snapshot's `xmax` is the latest *completed* transaction plus one, not the next ID
        /// to be handed out, so a transaction that got its ID after the last one that completed
        /// and is still running is in no snapshot's `xip` (it is only invisible, being at or
        /// above `xmax`). Such a writer can hold a seq below a visible one (another writer's,
        /// which got its ID earlier but its seq later, and committed); missing it let live
        /// windows pass that seq, and count one insert less for good, under load (4 writers,
        /// CI ci10d, ci10e). Its full ID is taken as the one nearest `xmax` with those low bits.
        static func candidates(_ xip: [Int64], sessions: [Int64], xmax: Int64) -> Set<Int64> {
            let other = Set(sessions.filter { $0 > 0 })
            var candidates = Set(xip.filter { !other.contains($0 & 0xFFFF_FFFF) })
            for session in sessions where session < 0 {
                let below = UInt32(truncatingIfNeeded: -session) &- UInt32(truncatingIfNeeded: xmax)
                candidates.insert(xmax + Int64(Int32(bitPattern: below)))
            }
            return candidates
        }

        /// Whether the transaction `xid`, found in progress (or a candidate) in an earlier
        /// snapshot, has ended as of a snapshot with `xmax` and `inProgress`: below `xmax`
        /// and not in progress. At or above `xmax` it may still run (see `candidates`).
        static func hasEnded(_ xid: Int64, xmax: Int64, inProgress: Set<Int64>) -> Bool {
            xid < xmax && !inProgress.contains(xid)
        }

        /// The rows up to `seq` written by the transactions `xids` (which have ended: the rows of
        /// those that committed).
        static func lateRows(through seq: Int64, of xids: [Int64], on connection: PostgresConnection)
            async throws -> [LoggedChange]
        {
            let rows = try await connection.query(
                """
                SELECT 0::bigint, 0::bigint, 0::bigint, seq, table_name, operation, row_id,
                       old_owner, old_status, old_priority, old_created, old_updated, old_title,
                       new_owner, new_status, new_priority, new_created, new_updated, new_title, text_changed
                FROM shelf_change_log
                WHERE seq <= \(seq) AND xid::text::bigint = ANY(\(xids)::bigint[])
                ORDER BY seq
                """, logger: .silent)
            var changes: [LoggedChange] = []
            for try await row in rows {
                if let change = try change(row.makeRandomAccess()) { changes.append(change) }
            }
            return changes
        }

        /// The rows after `seq` (at most `limit`) and the rows in `gaps`, with the snapshot they
        /// were read in.
        static func page(
            after seq: Int64, gaps: [ClosedRange<Int64>] = [], limit: Int = pageSize, on connection: PostgresConnection
        ) async throws -> ChangeLogPage {
            // The LEFT JOIN keeps the snapshot's row when no change follows `seq`. Each gap is
            // one range of the primary key.
            let lows = gaps.map(\.lowerBound)
            let highs = gaps.map(\.upperBound)
            let rows = try await connection.query(
                """
                SELECT s.xmin, s.xmax, s.horizon, l.seq, l.table_name, l.operation, l.row_id,
                       l.old_owner, l.old_status, l.old_priority, l.old_created, l.old_updated, l.old_title,
                       l.new_owner, l.new_status, l.new_priority, l.new_created, l.new_updated, l.new_title,
                       l.text_changed, l.after, s.xip, s.other
                FROM (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin,
                             pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xmax,
                             ARRAY(SELECT x::text::bigint FROM pg_snapshot_xip(pg_current_snapshot()) x) AS xip,
                             ARRAY(SELECT CASE WHEN datname = current_database() THEN -(backend_xid::text::bigint)
                                               ELSE backend_xid::text::bigint END
                                   FROM pg_stat_activity WHERE backend_xid IS NOT NULL) AS other,
                             (SELECT pruned_through FROM shelf_change_log_horizon LIMIT 1) AS horizon) s
                LEFT JOIN LATERAL (
                    (SELECT *, true AS after FROM shelf_change_log WHERE seq > \(seq) ORDER BY seq LIMIT \(Int64(limit)))
                    UNION ALL
                    (SELECT c.*, false FROM unnest(\(lows)::bigint[], \(highs)::bigint[]) AS g (lo, hi)
                     JOIN LATERAL (SELECT * FROM shelf_change_log WHERE seq BETWEEN g.lo AND g.hi) c ON true)
                ) l ON true
                ORDER BY l.seq
                """, logger: .silent)
            var xmin: Int64 = 0
            var xmax: Int64 = 0
            var horizon: Int64 = 0
            var changes: [LoggedChange] = []
            var afterCount = 0
            var xip: [Int64] = []
            var other: [Int64] = []
            for try await row in rows {
                let cells = row.makeRandomAccess()
                xip = try cells[21].decode([Int64].self)
                other = try cells[22].decode([Int64].self)
                xmin = try cells[0].decode(Int64.self)
                xmax = try cells[1].decode(Int64.self)
                horizon = try cells[2].decode(Int64?.self) ?? 0
                if let change = try change(cells) {
                    changes.append(change)
                    if try cells[20].decode(Bool?.self) == true { afterCount += 1 }
                }
            }
            return ChangeLogPage(
                xmin: xmin, xmax: xmax, inProgress: Set(xip), candidates: candidates(xip, sessions: other, xmax: xmax),
                prunedThrough: horizon, rows: changes, isFull: afterCount >= limit)
        }

        /// The change in cells 3 to 19 of a row, or nil when they are NULL (no change).
        static func change(_ cells: PostgresRandomAccessRow) throws -> LoggedChange? {
            guard let seq = try cells[3].decode(Int64?.self) else { return nil }
            let operation = try cells[5].decode(String.self)
            let textChanged = try cells[19].decode(Bool?.self) ?? true
            return LoggedChange(
                seq: seq, table: try cells[4].decode(String.self),
                operation: LoggedChange.Operation(rawValue: operation) ?? .truncate,
                rowID: try cells[6].decode(Int64?.self),
                before: try fields(cells, from: 7), after: try fields(cells, from: 13),
                textChanged: operation != "U" || textChanged)
        }

        /// The item fields in the six cells from `first`, or nil when they are NULL (not an
        /// item, or no such side of the change).
        private static func fields(_ cells: PostgresRandomAccessRow, from first: Int) throws
            -> LoggedChange.ItemFields?
        {
            guard let owner = try cells[first].decode(Int64?.self) else { return nil }
            return LoggedChange.ItemFields(
                owner: owner, status: try cells[first + 1].decode(String?.self) ?? "",
                priority: try cells[first + 2].decode(Int64?.self) ?? 0,
                createdAt: try cells[first + 3].decode(Int64?.self) ?? 0,
                updatedAt: try cells[first + 4].decode(Int64?.self) ?? 0,
                title: try cells[first + 5].decode(String?.self) ?? "")
        }
    }

    /// The database has no change log (a schema older than migration 0008, or damaged).
    struct ChangeLogMissing: Error, CustomStringConvertible {
        var description: String {
            "the database has no change log (shelf_change_log_horizon is empty); open it with this version of shelf "
                + "to migrate it"
        }
    }
#endif
