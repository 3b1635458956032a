#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    package import ShelfStore

    // Bulk writes over an `ItemSelection`, recorded in bulk_actions (Migrations/postgres/0011).

    extension ItemSelection {
        /// `SELECT i.id FROM items i …` of every item of the selection (each once), narrowed
        /// to `among` when given, binding its values. ID sets are bound as arrays.
        func postgresIDs(into bindings: inout PostgresBindings, among: [Item.ID]? = nil) -> String {
            var arms: [String] = []
            if let query {
                var clauses = query.postgresFilter(into: &bindings, prefix: "i.", now: now)
                if !excluded.isEmpty {
                    bindings.append(excluded.map(\.rawValue))
                    clauses.append("i.id <> ALL($\(bindings.count))")
                }
                if let among {
                    bindings.append(among.map(\.rawValue))
                    clauses.append("i.id = ANY($\(bindings.count))")
                }
                if let through {
                    bindings.append(through.rawValue)
                    clauses.append("i.id <= $\(bindings.count)")
                }
                arms.append(
                    "SELECT i.id FROM items i" + (clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND "))
                )
            }
            if !included.isEmpty {
                bindings.append(included.map(\.rawValue))
                var arm = "SELECT i.id FROM items i WHERE i.id = ANY($\(bindings.count))"
                if let among {
                    bindings.append(among.map(\.rawValue))
                    arm += " AND i.id = ANY($\(bindings.count))"
                }
                arms.append(arm)
            }
            return arms.isEmpty ? "SELECT i.id FROM items i WHERE false" : arms.joined(separator: " UNION ")
        }
    }

    extension PostgresItemRepository {
        package func count(in selection: ItemSelection, status: Item.Status?) async throws -> Int {
            guard !selection.isEmpty else { return 0 }
            var bindings = PostgresBindings()
            let ids = selection.postgresIDs(into: &bindings)
            var sql = "SELECT count(*) FROM items WHERE id IN (\(ids))"
            if let status {
                bindings.append(status.rawValue)
                sql += " AND status = $\(bindings.count)"
            }
            let query = PostgresQuery(unsafeSQL: sql, binds: bindings)
            return try await pool.read { connection in
                try await connection.query(query, logger: .silent).all((Int64).self).first.map(Int.init) ?? 0
            }
        }

        package func highestItemID() async throws -> Item.ID? {
            // IDs start at 1: 0 means no items.
            let query = PostgresQuery(unsafeSQL: "SELECT coalesce(max(id), 0) FROM items", binds: PostgresBindings())
            let top: Int64 = try await pool.read { connection in
                try await connection.query(query, logger: .silent).all((Int64).self).first ?? Int64(0)
            }
            return top > 0 ? Item.ID(rawValue: top) : nil
        }

        package func ids(in selection: ItemSelection, among ids: [Item.ID]) async throws -> Set<Item.ID> {
            guard !selection.isEmpty, !ids.isEmpty else { return [] }
            var bindings = PostgresBindings()
            let sql = selection.postgresIDs(into: &bindings, among: ids)
            let query = PostgresQuery(unsafeSQL: sql, binds: bindings)
            return try await pool.read { connection in
                Set(try await connection.query(query, logger: .silent).all((Int64).self).map(Item.ID.init(rawValue:)))
            }
        }

        package func updateItems(
            in selection: ItemSelection, _ change: BulkChange, progress: (@Sendable (BulkProgress) -> Void)?
        ) async throws -> BulkAction {
            if case .priority(let priority) = change, !Item.priorities.contains(priority) {
                throw StoreError(.invalidValue, "priority \(priority) is not 0 to 3; nothing was changed")
            }
            let now = Date().postgresMilliseconds
            let (kind, status, priority, owner) = Self.columns(of: change)
            let delete = change == .delete
            return try await Self.cancellable {
                try await self.pool.transaction { connection in
                    _ = try await connection.query(
                        "DELETE FROM bulk_actions WHERE created_at < \(now - 86_400_000)", logger: .silent)
                    if let owner {
                        let found = try await connection.query(
                            "SELECT id FROM users WHERE id = \(owner.rawValue) FOR KEY SHARE", logger: .silent
                        ).all((Int64).self)
                        if found.isEmpty {
                            throw StoreError(
                                .unknownUser,
                                "user \(owner) does not exist (deleted meanwhile?); pick another owner; nothing was changed"
                            )
                        }
                    }
                    let inserted: [Int64] =
                        try await connection.query(
                            """
                            INSERT INTO bulk_actions (kind, status, priority, user_id, created_at)
                            VALUES (\(kind), \(status?.rawValue), \(priority.map(Int64.init)), \(owner?.rawValue), \(now))
                            RETURNING id
                            """, logger: .silent
                        ).all((Int64).self)
                    let action: Int64 = inserted.first ?? 0
                    var bindings = PostgresBindings()
                    bindings.append(action)
                    let ids = selection.postgresIDs(into: &bindings)
                    var record = """
                        INSERT INTO bulk_action_items
                            (action_id, item_id, user_id, title, notes, status, priority, created_at, updated_at, version, written,
                            pending)
                        SELECT $1, i.id, i.user_id, \(delete ? "i.title, i.notes" : "NULL, NULL"), i.status, i.priority,
                            \(delete ? "i.created_at, i.updated_at" : "NULL, NULL"), i.version, i.version\(delete ? "" : " + 1"),
                            true
                        FROM items i WHERE i.id IN (\(ids))
                        """
                    if let status {
                        bindings.append(status.rawValue)
                        record += " AND i.status <> $\(bindings.count)"
                    } else if let priority {
                        bindings.append(Int64(priority))
                        record += " AND i.priority <> $\(bindings.count)"
                    } else if let owner {
                        bindings.append(owner.rawValue)
                        record += " AND i.user_id <> $\(bindings.count)"
                    }
                    // Locked against a concurrent write until the commit: the rows recorded are the rows written.
                    record += " FOR UPDATE OF i"
                    try await connection.query(PostgresQuery(unsafeSQL: record, binds: bindings), logger: .silent)
                    let total =
                        try await connection.query(
                            "SELECT count(*) FROM bulk_action_items WHERE action_id = \(action)", logger: .silent
                        ).all((Int64).self).first.map(Int.init) ?? 0
                    progress?(BulkProgress(done: 0, total: total))
                    // Esc while the items were recorded: nothing is written (the transaction rolls back).
                    try Task.checkCancellation()
                    let chosen = "SELECT item_id FROM bulk_action_items WHERE action_id = $1"
                    if delete {
                        var binds = PostgresBindings()
                        binds.append(action)
                        try await connection.query(
                            PostgresQuery(unsafeSQL: "DELETE FROM items WHERE id IN (\(chosen))", binds: binds),
                            logger: .silent)
                    } else {
                        try await Self.set(change, now: now, where: chosen, action: action, on: connection)
                    }
                    progress?(BulkProgress(done: total, total: total))
                    return BulkAction(id: action, change: change, count: total)
                }
            }
        }

        package func undo(_ action: BulkAction) async throws -> BulkReplay {
            try await replay(action, undoing: true)
        }

        package func redo(_ action: BulkAction) async throws -> BulkReplay {
            try await replay(action, undoing: false)
        }

        package func forget(_ actions: [Int64]) async throws {
            let cutoff = Date().postgresMilliseconds - 86_400_000
            try await pool.transaction { connection in
                _ = try await connection.query(
                    "DELETE FROM bulk_actions WHERE id = ANY(\(actions)) OR created_at < \(cutoff)", logger: .silent)
            }
        }

        /// Undoes or redoes `action` in one transaction, as SQLite's does.
        private func replay(_ action: BulkAction, undoing: Bool) async throws -> BulkReplay {
            let now = Date().postgresMilliseconds
            let id = action.id
            return try await Self.cancellable {
                try await self.pool.transaction { connection in
                    let undone = try await connection.query(
                        "SELECT undone FROM bulk_actions WHERE id = \(id) FOR UPDATE", logger: .silent
                    ).all(Bool.self).first
                    guard let undone else {
                        throw StoreError(
                            .notFound,
                            "the record of this bulk change is gone from the database (forgotten, or removed after a "
                                + "day); it cannot be \(undoing ? "undone" : "redone")")
                    }
                    if undone == undoing {
                        throw StoreError(.conflict, "this bulk change is \(undoing ? "undone" : "applied") already")
                    }
                    let delete = action.change == .delete
                    // At the version the last write left, and holding the value it wrote: an item
                    // deleted and made again with its ID starts its versions again.
                    let holds = delete ? "" : " AND " + action.change.holdsWritten(undoing: undoing, record: "b")
                    let atWritten =
                        "EXISTS (SELECT 1 FROM items WHERE items.id = b.item_id AND items.version = b.written\(holds))"
                    let ownerExists = "EXISTS (SELECT 1 FROM users WHERE users.id = b.user_id)"
                    let pending =
                        switch (delete, undoing) {
                        case (false, true): "\(atWritten) AND \(ownerExists)"
                        case (false, false), (true, false): atWritten
                        case (true, true):
                            "NOT EXISTS (SELECT 1 FROM items WHERE items.id = b.item_id) AND \(ownerExists)"
                        }
                    // `pending` holds what the action, or its last undo or redo, wrote: an item
                    // that one skipped is left out from then on, and not counted as skipped again.
                    let written: Int64 =
                        try await connection.query(
                            "SELECT count(*) FROM bulk_action_items WHERE action_id = \(id) AND pending",
                            logger: .silent
                        ).all((Int64).self).first ?? Int64(0)
                    // Skipped for a reason of their own: the owner they go back to is gone.
                    var ownerGone: Int64 = 0
                    if undoing {
                        var gone = PostgresBindings()
                        gone.append(id)
                        ownerGone =
                            try await connection.query(
                                PostgresQuery(
                                    unsafeSQL:
                                        "SELECT count(*) FROM bulk_action_items b WHERE b.action_id = $1 AND b.pending "
                                        + "AND NOT \(ownerExists)", binds: gone), logger: .silent
                            ).all((Int64).self).first ?? Int64(0)
                    }
                    var binds = PostgresBindings()
                    binds.append(id)
                    try await connection.query(
                        PostgresQuery(
                            unsafeSQL:
                                "UPDATE bulk_action_items b SET pending = (\(pending)) WHERE b.action_id = $1 AND b.pending",
                            binds: binds), logger: .silent)
                    let still: Int64 =
                        try await connection.query(
                            "SELECT count(*) FROM bulk_action_items WHERE action_id = \(id) AND pending",
                            logger: .silent
                        ).all((Int64).self).first ?? Int64(0)
                    let counts: (Int64, Int64) = (written, still)
                    let chosen = "SELECT item_id FROM bulk_action_items WHERE action_id = $1 AND pending"
                    switch (delete, undoing) {
                    case (false, true):
                        try await connection.query(
                            """
                            UPDATE items SET user_id = b.user_id, status = b.status, priority = b.priority,
                                updated_at = greatest(\(now), items.updated_at), version = items.version + 1
                            FROM bulk_action_items b WHERE b.action_id = \(id) AND b.pending AND items.id = b.item_id
                            """, logger: .silent)
                    case (false, false):
                        try await Self.set(action.change, now: now, where: chosen, action: id, on: connection)
                    case (true, true):
                        try await connection.query(
                            """
                            INSERT INTO items (id, user_id, title, notes, status, priority, created_at, updated_at, version)
                            SELECT item_id, user_id, title, notes, status, priority, created_at, updated_at, version
                            FROM bulk_action_items WHERE action_id = \(id) AND pending
                            """, logger: .silent)
                    case (true, false):
                        try await connection.query(
                            PostgresQuery(unsafeSQL: "DELETE FROM items WHERE id IN (\(chosen))", binds: binds),
                            logger: .silent)
                    }
                    if !delete {
                        try await connection.query(
                            "UPDATE bulk_action_items SET written = written + 1 WHERE action_id = \(id) AND pending",
                            logger: .silent)
                    }
                    try await connection.query(
                        "UPDATE bulk_actions SET undone = \(undoing) WHERE id = \(id)", logger: .silent)
                    return BulkReplay(
                        applied: Int(counts.1), skipped: Int(counts.0 - counts.1), ownerGone: Int(ownerGone))
                }
            }
        }

        /// Sets the column `change` sets on the items `chosen` selects (with `$1` the action).
        private static func set(
            _ change: BulkChange, now: Int64, where chosen: String, action: Int64, on connection: PostgresConnection
        ) async throws {
            var binds = PostgresBindings()
            binds.append(action)
            let column: String
            switch change {
            case .status(let status):
                binds.append(status.rawValue)
                column = "status"
            case .priority(let priority):
                binds.append(Int64(priority))
                column = "priority"
            case .owner(let owner):
                binds.append(owner.rawValue)
                column = "user_id"
            case .delete:
                return
            }
            binds.append(now)
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: "UPDATE items SET \(column) = $2, updated_at = greatest($3, updated_at), "
                        + "version = version + 1 WHERE id IN (\(chosen))", binds: binds), logger: .silent)
        }

        /// The columns of bulk_actions for `change`.
        static func columns(of change: BulkChange) -> (
            kind: String, status: Item.Status?, priority: Int?, owner: User.ID?
        ) {
            switch change {
            case .status(let status): ("status", status, nil, nil)
            case .priority(let priority): ("priority", nil, priority, nil)
            case .owner(let owner): ("owner", nil, nil, owner)
            case .delete: ("delete", nil, nil, nil)
            }
        }

        /// Runs `body`; a failure that comes from the calling task being cancelled (the
        /// transaction rolled back) is thrown as `CancellationError`.
        private static func cancellable<T: Sendable>(_ body: () async throws -> T) async throws -> T {
            do {
                return try await body()
            } catch {
                if Task.isCancelled { throw CancellationError() }
                throw error
            }
        }
    }
#endif
