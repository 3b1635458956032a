#if PostgreSQL
    internal import PostgresNIO
    internal import ShelfStore

    /// One read of `shelf_change_log` for an ordered reader (`ChangeLogWatermark`): the rows
    /// after a seq, the log's head, and the snapshot, all from one statement.
    struct OrderedChangeLogRead: Sendable {
        /// One row: its place, table, operation (`I`, `U`, `D`, `T`) and row ID.
        struct Row: Sendable {
            let seq: Int64
            let table: String
            let operation: String
            let rowID: Int64?
        }

        /// The rows after the seq asked for, ascending, at most the limit.
        let rows: [Row]
        /// The highest visible seq (0 when the log is empty).
        let head: Int64
        /// True when the read stopped at its limit.
        let isFull: Bool
        /// What the snapshot shows, for `ChangeLogWatermark.advance`.
        let snapshot: ChangeLogWatermark.Snapshot
    }

    extension ChangeLog {
        /// How far below the head a reader that starts with no position looks for seqs that may
        /// still commit (see `start(on:)`).
        static let startWindow: Int64 = 4096

        /// The snapshot's fields and the log's head, as one row (`xmin`, `xmax`, `xip`, `other`,
        /// `horizon`, `head`).
        static let snapshotSQL = """
            SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin,
                   pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xmax,
                   ARRAY(SELECT x::text::bigint FROM pg_snapshot_xip(pg_current_snapshot()) x) AS xip,
                   ARRAY(SELECT CASE WHEN datname = current_database() THEN -(backend_xid::text::bigint)
                                     ELSE backend_xid::text::bigint END
                         FROM pg_stat_activity WHERE backend_xid IS NOT NULL) AS other,
                   (SELECT pruned_through FROM shelf_change_log_horizon LIMIT 1) AS horizon,
                   coalesce((SELECT max(seq) FROM shelf_change_log), 0) AS head
            """

        /// The rows after `seq` (at most `limit`), or, when `seq` is nil, those of the last
        /// `startWindow` seqs, with the head and the snapshot: one statement, one snapshot (the
        /// transaction's, inside a REPEATABLE READ transaction).
        static func ordered(after seq: Int64?, limit: Int, on connection: PostgresConnection) async throws
            -> OrderedChangeLogRead
        {
            let rows = try await connection.query(
                """
                SELECT s.xmin, s.xmax, s.xip, s.other, s.horizon, s.head, l.seq, l.table_name, l.operation, l.row_id
                FROM (\(unescaped: snapshotSQL)) s
                LEFT JOIN LATERAL (
                    SELECT seq, table_name, operation, row_id FROM shelf_change_log
                    WHERE seq > coalesce(\(seq), s.head - \(startWindow))
                    ORDER BY seq LIMIT \(Int64(limit))
                ) l ON true
                ORDER BY l.seq
                """, logger: .silent)
            var read: [OrderedChangeLogRead.Row] = []
            var xmin: Int64 = 0
            var xmax: Int64 = 0
            var xip: [Int64] = []
            var other: [Int64] = []
            var horizon: Int64 = 0
            var head: Int64 = 0
            for try await (rowXmin, rowXmax, rowXip, rowOther, rowHorizon, rowHead, seq, table, operation, rowID)
                in rows.decode((Int64, Int64, [Int64], [Int64], Int64?, Int64, Int64?, String?, String?, Int64?).self)
            {
                (xmin, xmax, xip, other, horizon, head) = (
                    rowXmin, rowXmax, rowXip, rowOther, rowHorizon ?? 0, rowHead
                )
                if let seq, let table, let operation {
                    read.append(OrderedChangeLogRead.Row(seq: seq, table: table, operation: operation, rowID: rowID))
                }
            }
            return OrderedChangeLogRead(
                rows: read, head: head, isFull: read.count >= limit,
                snapshot: ChangeLogWatermark.Snapshot(
                    seqs: read.map(\.seq), xmin: xmin, xmax: xmax, inProgress: Set(xip),
                    candidates: candidates(xip, sessions: other, xmax: xmax),
                    prunedThrough: horizon))
        }

        /// A watermark from which an ordered reader that starts with no position follows the
        /// log, read with the rest of `connection`'s transaction: the head, or, while
        /// transactions of this database are in progress, below the first seq of the last
        /// `startWindow` that is not visible and may still commit. (A transaction holding a
        /// seq further below the head, and still to commit, is not waited for.)
        /// Returns the log's head too (the highest visible seq).
        ///
        /// The window never reaches below the multiple of 2^32 at or below the head: a new
        /// store's seqs start just past one (postgres/0014), and the seqs below it never
        /// existed, so waiting for them as gaps held a stream from now below the store's first
        /// change. (Only a store past 2^32 changes crosses such a multiple on its own; a seq
        /// left pending just below it is then not waited for, as one below the window.)
        static func start(on connection: PostgresConnection) async throws -> (ChangeLogWatermark, head: Int64) {
            let (snapshot, head) = try await startSnapshot(on: connection)
            let floor = (head >> 32) << 32
            var watermark = ChangeLogWatermark(position: max(0, head - startWindow, floor))
            watermark.advance(snapshot)
            return (watermark, head)
        }

        /// What one snapshot shows of the log's last `startWindow` seqs, and its head: for
        /// `start`, and for a second look that settles the gaps the first could not.
        static func startSnapshot(on connection: PostgresConnection) async throws
            -> (ChangeLogWatermark.Snapshot, head: Int64)
        {
            // The window's seqs as one array, not its rows: `ordered(after: nil, …)` gave 4,096
            // rows of ten columns (the snapshot's two arrays on each), and decoding them made a
            // stream from now open in 0.65-1.5 s, against 10-30 ms with a position (hostile
            // round 10; the statement itself takes 10 ms).
            let rows = try await connection.query(
                """
                SELECT s.xmin, s.xmax, s.xip, s.other, s.horizon, s.head,
                       ARRAY(SELECT seq FROM shelf_change_log WHERE seq > s.head - \(startWindow)
                             ORDER BY seq LIMIT \(startWindow))
                FROM (\(unescaped: snapshotSQL)) s
                """, logger: .silent)
            for try await (xmin, xmax, xip, other, horizon, head, seqs)
                in rows.decode((Int64, Int64, [Int64], [Int64], Int64?, Int64, [Int64]).self)
            {
                let snapshot = ChangeLogWatermark.Snapshot(
                    seqs: seqs, xmin: xmin, xmax: xmax, inProgress: Set(xip),
                    candidates: candidates(xip, sessions: other, xmax: xmax), prunedThrough: horizon ?? 0)
                return (snapshot, head)
            }
            throw StoreError(.database, "reading the change log's start gave no row; retry")
        }
    }
#endif
