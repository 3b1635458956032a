#if PostgreSQL
    internal import Foundation
    internal import Logging
    internal import PostgresNIO
    internal import ShelfReactive
    package import ShelfStore

    /// Copying (`Store.copy(to:)`) from and into a PostgreSQL store, on a connection of the
    /// copy's own (not the pool's): a snapshot is one REPEATABLE READ READ ONLY transaction; a
    /// copy's transaction is one READ COMMITTED transaction, which the server rolls back if
    /// the connection is lost or the process dies before it commits. It first locks the copied
    /// tables against other writers (`PostgresCopyRows.lockTables`), so that what it finds
    /// there stays so until it commits.
    extension PostgresBackend {
        package func withCopySnapshot<T>(_ body: (any CopySnapshot) throws -> T) throws -> T {
            try pool.checkOpen()
            let rows = try PostgresCopyRows(place: place, operation: .read)
            defer { rows.close() }
            try rows.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            let value = try body(rows)
            try rows.execute("COMMIT")
            return value
        }

        package func withCopyTransaction<T>(_ body: (any CopyTransaction) throws -> T) throws -> T {
            try pool.checkOpen()
            let rows = try PostgresCopyRows(place: place, operation: .write)
            defer { rows.close() }
            rows.watchClient()
            try rows.execute("BEGIN")
            let value: T
            do {
                try rows.lockTables()
                value = try body(rows)
            } catch {
                // Closing the connection would roll back too; say so at once instead.
                try? rows.execute("ROLLBACK")
                throw error
            }
            try rows.execute("COMMIT")
            return value
        }

        package func otherUsers() throws -> String? {
            // A session whose client just closed (this process's migration connection, a
            // shelf command that just ended) stays listed for a moment while its server
            // process ends: only sessions still there after a second count.
            var others = try otherSessions()
            let deadline = ContinuousClock.now + .seconds(1)
            while !others.isEmpty, ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.05)
                let now = Set(try otherSessions().map(\.pid))
                others.removeAll { !now.contains($0.pid) }
            }
            guard !others.isEmpty else { return nil }
            return others.prefix(3).map(\.description).joined(separator: ", ")
                + (others.count > 3 ? " and \(others.count - 3) more" : "")
        }

        /// The sessions of this database that are not this process's, oldest first.
        private func otherSessions() throws -> [LockHolderSession] {
            let place = self.place
            let sessions = try BlockingWork.waitFor {
                try await PostgresBackend.withConnection(to: place) { connection in
                    try await connection.query(
                        """
                        SELECT pid, coalesce(application_name, ''), coalesce(usename::text, ''),
                               coalesce(host(client_addr), ''), coalesce(client_port, -1)
                        FROM pg_stat_activity
                        WHERE datname = current_database() AND pid <> pg_backend_pid()
                          AND backend_type = 'client backend'
                        ORDER BY backend_start
                        """, logger: .silent
                    ).collect().map { try $0.decode((Int32, String, String, String, Int32).self) }
                }
            }
            // This process's own connections (the store's pool, its change feed) are not
            // another process. Read after the query: a connection the pool opened meanwhile
            // (it connects in the background) already has its port then.
            let ours = LocalSockets.tcpPorts()
            return sessions.filter { session in session.4 < 0 || !ours.contains(session.4) }.map { session in
                LockHolderSession(pid: session.0, application: session.1, user: session.2, address: session.3)
            }
        }

        /// PostgreSQL checks its pages itself (checksums when enabled); shelf adds nothing.
        package func checkIntegrity() throws {}
    }
#endif
