#if PostgreSQL
    internal import PostgresNIO
    internal import ShelfStore

    /// A snapshot's view of which transactions had committed (`pg_current_snapshot()`): what a
    /// live window read in it reflects.
    struct TransactionSnapshot: Sendable, Hashable {
        let xmin: Int64
        let xmax: Int64
        let inProgress: Set<Int64>

        /// Whether the changes of transaction `xid` (if it committed) are visible in this
        /// snapshot, as `pg_visible_in_snapshot` decides.
        func sees(_ xid: Int64) -> Bool {
            xid < xmin || (xid < xmax && !inProgress.contains(xid))
        }
    }

    /// One read of `shelf_change_log` for the live windows (`PostgresLiveWindows`): the rows
    /// after a seq with everything a window judges them by and their transactions, the log's
    /// head and the snapshot, all from one statement (inside a REPEATABLE READ transaction,
    /// the transaction's snapshot).
    struct WindowLogRead: Sendable {
        /// A row and the transaction that wrote it.
        struct Row: Sendable {
            let change: LoggedChange
            let xid: Int64
        }

        /// The rows after the seq asked for, ascending, at most the limit.
        let rows: [Row]
        /// The highest visible seq (0 when the log is empty).
        let head: Int64
        /// True when the read stopped at its limit.
        let isFull: Bool
        let transactions: TransactionSnapshot
        /// What the snapshot shows, for `ChangeLogWatermark.advance`.
        let watermark: ChangeLogWatermark.Snapshot
    }

    extension ChangeLog {
        /// The rows after `seq` (at most `limit`), or, when `seq` is nil, those of the last
        /// `startWindow` seqs, with their transaction IDs, the head and the snapshot.
        static func windowRead(after seq: Int64?, limit: Int, on connection: PostgresConnection) async throws
            -> WindowLogRead
        {
            // Cells 3 to 19 are those `change(_:)` decodes.
            let rows = try await connection.query(
                """
                SELECT s.xmin, s.xmax, s.horizon, l.seq, l.table_name, l.operation, l.row_id,
                       l.old_owner, l.old_status, l.old_priority, l.old_created, l.old_updated, l.old_title,
                       l.new_owner, l.new_status, l.new_priority, l.new_created, l.new_updated, l.new_title,
                       l.text_changed, l.xid::text::bigint, s.xip, s.other, s.head
                FROM (\(unescaped: snapshotSQL)) s
                LEFT JOIN LATERAL (
                    SELECT * FROM shelf_change_log
                    WHERE seq > coalesce(\(seq), s.head - \(startWindow))
                    ORDER BY seq LIMIT \(Int64(limit))
                ) l ON true
                ORDER BY l.seq
                """, logger: .silent)
            var read: [WindowLogRead.Row] = []
            var xmin: Int64 = 0
            var xmax: Int64 = 0
            var horizon: Int64 = 0
            var xip: [Int64] = []
            var other: [Int64] = []
            var head: Int64 = 0
            for try await row in rows {
                let cells = row.makeRandomAccess()
                xmin = try cells[0].decode(Int64.self)
                xmax = try cells[1].decode(Int64.self)
                horizon = try cells[2].decode(Int64?.self) ?? 0
                xip = try cells[21].decode([Int64].self)
                other = try cells[22].decode([Int64].self)
                head = try cells[23].decode(Int64.self)
                if let change = try change(cells), let xid = try cells[20].decode(Int64?.self) {
                    read.append(WindowLogRead.Row(change: change, xid: xid))
                }
            }
            return WindowLogRead(
                rows: read, head: head, isFull: read.count >= limit,
                transactions: TransactionSnapshot(xmin: xmin, xmax: xmax, inProgress: Set(xip)),
                watermark: ChangeLogWatermark.Snapshot(
                    seqs: read.map(\.change.seq), xmin: xmin, xmax: xmax, inProgress: Set(xip),
                    candidates: candidates(xip, sessions: other, xmax: xmax), prunedThrough: horizon))
        }
    }

    extension LoggedChange {
        /// This change of an item as the live window judge takes it; nil for other tables and
        /// for truncates, and for a status shelf never writes (the window is then read again,
        /// which reports it).
        var itemChange: ItemChange? {
            guard table == "items", operation != .truncate, let rowID else { return nil }
            func image(_ fields: ItemFields?) -> ItemImage?? {
                guard let fields else { return .some(nil) }
                guard let status = Item.Status(rawValue: fields.status) else { return nil }
                return ItemImage(
                    userID: User.ID(fields.owner), status: status, priority: Int(fields.priority),
                    createdAt: fields.createdAt, updatedAt: fields.updatedAt, title: fields.title)
            }
            guard let before = image(operation == .insert ? nil : before),
                let after = image(operation == .delete ? nil : after)
            else { return nil }
            return ItemChange(sequence: seq, id: Item.ID(rowID), before: before, after: after, textChanged: textChanged)
        }
    }
#endif
