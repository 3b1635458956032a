#if PostgreSQL
    internal import Foundation
    internal import PostgresNIO
    internal import ShelfStore

    /// The locking and the bulk load of a copy into a PostgreSQL store.
    ///
    /// `lockTables` takes the copied tables in SHARE ROW EXCLUSIVE mode first thing in the
    /// copy's transaction: readers go on, but no other session writes them until the copy
    /// commits or rolls back, so the target the copy found empty stays empty until its rows
    /// are in. A second copy into the same database waits there for the first, then finds its
    /// rows and says so (`waitedFor`), instead of failing on their keys.
    ///
    /// `beginBulkLoad` then drops the non-unique indexes of users and items and disables their
    /// change-log triggers (migration 0008), all inside the transaction; `finishBulkLoad`
    /// makes the indexes again from the definitions the server gave (so they cannot drift from
    /// the migrations), enables the triggers, and logs one truncate entry per table, which
    /// makes every live query of those tables read in full once (the rows went unlogged).
    /// Until the commit, other sessions see the tables as they were (and wait to read them
    /// while an index is dropped: DROP INDEX locks its table).
    extension PostgresCopyRows {
        /// What `beginBulkLoad` dropped and disabled.
        struct BulkLoad {
            /// `CREATE INDEX` statements of the dropped indexes.
            var indexes: [String]
            /// The disabled triggers, as (table, trigger).
            var triggers: [(table: String, name: String)]
        }

        /// The tables whose per-row upkeep a bulk load takes off: those that get many rows.
        private static let bulkTables = ["users", "items"]

        /// The change-log triggers of migration 0008 that a bulk load stands in for.
        private static let knownTriggers: Set<String> = ["users_log_change", "items_log_change"]

        /// Locks the copied tables against other writers, waiting for those that write them
        /// now; when it had to wait, `waitedFor` names them.
        func lockTables() throws {
            let tables = CopyTable.allCases.map(\.name).joined(separator: ", ")
            try execute("SAVEPOINT shelf_copy_lock")
            do {
                try execute("LOCK TABLE \(tables) IN SHARE ROW EXCLUSIVE MODE NOWAIT")
                try execute("RELEASE SAVEPOINT shelf_copy_lock")
                return
            } catch let error as StoreError where error.code == .busy {
                try execute("ROLLBACK TO SAVEPOINT shelf_copy_lock")
            }
            let names = CopyTable.allCases.map { "'\($0.name)'" }.joined(separator: ", ")
            let holders = try query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT DISTINCT a.pid, coalesce(a.application_name, ''), coalesce(a.usename::text, ''),
                               coalesce(host(a.client_addr), '')
                        FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                        WHERE l.granted AND l.pid <> pg_backend_pid()
                          AND l.relation = ANY (ARRAY[\(names)]::regclass[])
                          AND l.mode NOT IN ('AccessShareLock', 'RowShareLock')
                        ORDER BY a.pid
                        """)
            ).map { row in
                let (pid, application, user, address) = try row.decode((Int32, String, String, String).self)
                return LockHolderSession(pid: pid, application: application, user: user, address: address)
            }
            waitedFor =
                holders.isEmpty
                ? "another session" : holders.map(\.description).joined(separator: ", ")
            // Waits up to the lock timeout; past it, the error names who held the lock.
            try execute("LOCK TABLE \(tables) IN SHARE ROW EXCLUSIVE MODE")
        }

        func beginBulkLoad() throws {
            guard bulkLoad == nil else { return }
            let tables = Self.bulkTables.map { "'\($0)'" }.joined(separator: ", ")
            let indexes = try query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT c.relname::text, pg_get_indexdef(i.indexrelid) FROM pg_index i
                        JOIN pg_class c ON c.oid = i.indexrelid
                        WHERE i.indrelid = ANY (ARRAY[\(tables)]::regclass[])
                          AND NOT i.indisunique AND NOT i.indisprimary
                        ORDER BY c.relname
                        """)
            ).map { try $0.decode((String, String).self) }
            let triggers = try query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT c.relname::text, t.tgname::text FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                        WHERE t.tgrelid = ANY (ARRAY[\(tables)]::regclass[]) AND NOT t.tgisinternal
                          AND t.tgenabled <> 'D'
                        ORDER BY t.tgname
                        """)
            ).map { try $0.decode((String, String).self) }.filter { Self.knownTriggers.contains($0.1) }
            for (name, _) in indexes { try execute("DROP INDEX \(Self.quoted(name))") }
            for (table, name) in triggers {
                try execute("ALTER TABLE \(Self.quoted(table)) DISABLE TRIGGER \(Self.quoted(name))")
            }
            bulkLoad = BulkLoad(indexes: indexes.map(\.1), triggers: triggers.map { (table: $0.0, name: $0.1) })
        }

        func finishBulkLoad(isCancelled: () -> Bool) throws {
            guard let bulkLoad else { return }
            // The server's memory, not this process's: GIN indexes build in fewer passes.
            try execute("SET LOCAL maintenance_work_mem = '128MB'")
            for index in bulkLoad.indexes {
                if isCancelled() { throw CancellationError() }
                try execute(index)
            }
            for trigger in bulkLoad.triggers {
                try execute("ALTER TABLE \(Self.quoted(trigger.table)) ENABLE TRIGGER \(Self.quoted(trigger.name))")
            }
            let logged = Set(bulkLoad.triggers.map(\.table)).sorted().map { "('\($0)', 'T')" }
            if !logged.isEmpty {
                try execute(
                    "INSERT INTO shelf_change_log (table_name, operation) VALUES " + logged.joined(separator: ", "))
            }
            self.bulkLoad = nil
        }

        private static func quoted(_ name: String) -> String {
            "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
    }
#endif
