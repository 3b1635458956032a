#if PostgreSQL
    internal import Foundation
    internal import Logging
    internal import PostgresNIO
    internal import ShelfReactive
    internal import ShelfStore

    #if canImport(Glibc)
        internal import Glibc
    #endif

    /// The rows of a PostgreSQL store on a connection of the copy's own, inside a
    /// transaction the caller begins and ends: read for a snapshot, read and written for a
    /// copy's transaction. Every method blocks the calling thread (a thread of the copy's,
    /// never a task). Used by one thread; `close()` ends the connection.
    final class PostgresCopyRows: CopyTransaction {
        let place: PostgresLocation
        private let connection: PostgresConnection
        /// The connection's server process, for the lock-wait watcher (`LockWait`).
        private let pid: Int32
        /// What a lock wait of this connection held up, for its message.
        private let operation: LockWait.Operation
        /// Ends a query the connection's close left waiting (see `CallGuard`): a copy whose
        /// connection the server ended between two statements waited forever.
        private let calls = CallGuard()
        /// What `beginBulkLoad` dropped and disabled, made again by `finishBulkLoad`.
        var bulkLoad: BulkLoad?
        /// The sessions that held the copied tables when `lockTables` had to wait for them.
        var waitedFor: String?

        init(place: PostgresLocation, operation: LockWait.Operation) throws {
            self.place = place
            self.operation = operation
            let configuration = try place.connectionConfiguration()
            let made: (PostgresConnection, Int32) = try BlockingWork.waitFor {
                do {
                    let connection = try await PostgresConnection.connect(
                        configuration: configuration, id: 1, logger: Logger.silent)
                    do {
                        let pid = try await connection.query("SELECT pg_backend_pid()", logger: .silent).all(
                            (Int32).self
                        ).first
                        return (connection, pid ?? 0)
                    } catch {
                        try? await connection.close()
                        throw error
                    }
                } catch {
                    throw StoreError(postgres: error, at: place)
                }
            }
            connection = made.0
            pid = made.1
        }

        func close() {
            let connection = self.connection
            _ = try? BlockingWork.waitFor { try await connection.close() }
        }

        /// Every row of `sql`, run on the copy's connection; failures as `StoreError`s.
        func query(_ sql: PostgresQuery) throws -> [PostgresRow] {
            let connection = self.connection
            // A query sent on a connection the server has ended never answers (postgres-nio
            // 1.33): fail at once instead.
            if connection.isClosed {
                throw StoreError(.database, StoreError.lostConnection(at: place, cause: "the server closed it"))
            }
            do {
                let (calls, place, pid, operation) = (self.calls, self.place, self.pid, self.operation)
                return try BlockingWork.waitFor {
                    try await calls.run(on: connection, at: place) { connection in
                        // A lock wait that times out names the sessions holding the lock, as
                        // every other write's does.
                        try await LockWait.watching(connection: connection, pid: pid, at: place, operation) {
                            try await $0.query(sql, logger: .silent).collect()
                        }
                    }
                }
            } catch {
                throw StoreError(postgres: error, at: place)
            }
        }

        /// Has the server look every second, while a statement of this session runs, whether
        /// this process is still there, and end the statement and its transaction when it is
        /// not (PostgreSQL 14's `client_connection_check_interval`). Without it a copy or
        /// restore killed with `kill -9` in the middle of a long statement kept its locks until
        /// that statement ended by itself: every reader of the store waited 11-20 s, saying
        /// nothing (hostile round 15). An older server, which has no such setting, refuses it,
        /// and the session goes on as before: nothing else depends on it.
        func watchClient() {
            do {
                try execute(Self.watchClientSQL)
            } catch {
                PostgresPool.logger.debug("the server does not check for a vanished client: \(error)")
            }
        }

        /// See `watchClient`.
        static let watchClientSQL = "SET client_connection_check_interval = 1000"

        func execute(_ sql: String) throws {
            _ = try query(PostgresQuery(unsafeSQL: sql))
        }

        private func scalar(_ sql: String) throws -> Int64 {
            try query(PostgresQuery(unsafeSQL: sql)).first?.decode(Int64?.self) ?? 0
        }

        // MARK: Reading

        /// Migration records, the generated search column, the change log (migration 0008)
        /// and the item counts (migration 0012), which the target's own triggers write as rows
        /// arrive, and the browser's undo records of bulk changes (migration 0011), which
        /// belong to its session.
        var derivedColumns: Set<String> {
            [
                "shelf_migrations", "items.search", "shelf_change_log", "shelf_change_log_horizon", "bulk_actions",
                "bulk_action_items", "shelf_item_totals", "shelf_item_count_deltas",
            ]
        }

        func schemaColumns() throws -> [String: [String]] {
            let rows = try query(
                """
                SELECT c.table_name::text, c.column_name::text FROM information_schema.columns c
                JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
                WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
                """)
            var schema: [String: [String]] = [:]
            for row in rows {
                let (table, column) = try row.decode((String, String).self)
                schema[table, default: []].append(column)
            }
            return schema
        }

        func rowCount(_ table: CopyTable) throws -> Int {
            Int(try scalar("SELECT count(*) FROM \(table.name)"))
        }

        func lastID(_ table: CopyTable) throws -> Int64 {
            try scalar(
                """
                SELECT greatest(coalesce(max(id), 0),
                    coalesce(pg_sequence_last_value(pg_get_serial_sequence('\(table.name)', 'id')::regclass), 0))
                FROM \(table.name)
                """)
        }

        func rows(_ table: CopyTable, after id: Int64, limit: Int) throws -> [CopyRow] {
            var bindings = PostgresBindings()
            bindings.append(id)
            bindings.append(Int64(limit))
            let rows = try query(
                PostgresQuery(
                    unsafeSQL: "SELECT \(table.columnList) FROM \(table.name) WHERE id > $1 ORDER BY id LIMIT $2",
                    binds: bindings))
            let columns = table.columns
            return try rows.map { row in
                var values: CopyRow = []
                values.reserveCapacity(columns.count)
                for (column, cell) in zip(columns, row) {
                    switch column.kind {
                    case .integer: values.append(try cell.decode(Int64?.self).map(CopyValue.integer) ?? .null)
                    case .boolean:
                        values.append(try cell.decode(Bool?.self).map { CopyValue.integer($0 ? 1 : 0) } ?? .null)
                    case .text:
                        values.append(try cell.decode(String?.self).map { CopyValue.text(Array($0.utf8)) } ?? .null)
                    }
                }
                return values
            }
        }

        // MARK: Writing

        func deleteAll() throws {
            // In the copy's transaction: other sessions see the old rows until it commits.
            try execute("TRUNCATE api_tokens, saved_views, items, users")
        }

        func insert(_ rows: [CopyRow], into table: CopyTable) throws {
            guard !rows.isEmpty else { return }
            let columns = table.columns
            var bindings = PostgresBindings(capacity: rows.count * columns.count)
            var tuples: [String] = []
            tuples.reserveCapacity(rows.count)
            for row in rows {
                var marks: [String] = []
                for (column, value) in zip(columns, row) {
                    switch (column.kind, value) {
                    case (.integer, .integer(let number)): bindings.append(number)
                    case (.integer, _): bindings.append(Int64?.none)
                    case (.boolean, .integer(let number)): bindings.append(number != 0)
                    case (.boolean, _): bindings.append(Bool?.none)
                    case (.text, .text(let bytes)):
                        guard let text = String(validating: bytes, as: UTF8.self) else {
                            throw CopyValueRefusal(
                                table: table.name, row: row.first?.integer, column: column.name,
                                problem: "bytes that are not UTF-8 text, which PostgreSQL cannot store")
                        }
                        bindings.append(text)
                    case (.text, _): bindings.append(String?.none)
                    }
                    marks.append("$\(bindings.count)")
                }
                tuples.append("(" + marks.joined(separator: ", ") + ")")
            }
            _ = try query(
                PostgresQuery(
                    unsafeSQL: "INSERT INTO \(table.name) (\(table.columnList)) VALUES "
                        + tuples.joined(separator: ", "),
                    binds: bindings))
        }

        func advanceSequence(of table: CopyTable, past id: Int64) throws {
            guard id > 0 else { return }
            var bindings = PostgresBindings()
            bindings.append(id)
            _ = try query(
                PostgresQuery(
                    unsafeSQL: "SELECT setval(pg_get_serial_sequence('\(table.name)', 'id'), $1)", binds: bindings))
        }
    }

    /// The TCP connections of this process, by local port: to tell its own sessions from
    /// another process's in `pg_stat_activity` (whose `client_port` is the client's port).
    enum LocalSockets {
        /// The local ports of this process's IPv4 and IPv6 sockets.
        static func tcpPorts() -> Set<Int32> {
            let listed = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap {
                Int32($0)
            }
            var ports = Set<Int32>()
            for descriptor in listed ?? Array(0..<4096) {
                var address = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let found = withUnsafeMutablePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
                }
                guard found == 0 else { continue }
                switch Int32(address.ss_family) {
                case AF_INET:
                    let port = withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
                    }
                    ports.insert(Int32(UInt16(bigEndian: port)))
                case AF_INET6:
                    let port = withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port }
                    }
                    ports.insert(Int32(UInt16(bigEndian: port)))
                default: continue
                }
            }
            return ports
        }
    }
#endif
