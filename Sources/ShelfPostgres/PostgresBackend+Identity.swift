#if PostgreSQL
    internal import PostgresNIO
    internal import ShelfStore

    extension PostgresBackend {
        /// The identity of the database `connection` is connected to, for
        /// `StoreBackend.copyIdentity`: the server cluster's `system_identifier` (from
        /// `pg_control_system()`) and the database's OID. Two URLs that name one database by
        /// different host names (`127.0.0.1` and `localhost`), ports forwarded to it, or users,
        /// give the same identity, which the URLs themselves cannot tell (the hostile tester's
        /// F12: such a copy waited for its own lock, then said "try again").
        ///
        /// `pg_control_system()` may be run by every role unless an administrator revoked it
        /// (PostgreSQL grants it to PUBLIC); a role that may not, or a server that does not
        /// offer it, gives the server's start time instead (`pg_postmaster_start_time()`, to the
        /// microsecond: one running server's, readable by every role). Two URLs whose roles
        /// differ in that privilege then do not match, and such a copy is refused later, by
        /// its lock wait.
        static func databaseIdentity(on connection: PostgresConnection) async throws -> String {
            let cluster: String
            do {
                let rows = try await connection.query(
                    """
                    SELECT CASE WHEN has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE')
                                THEN (SELECT system_identifier::text FROM pg_catalog.pg_control_system()) END
                    """, logger: .silent
                ).collect()
                let system = try rows.first?.decode(String?.self) ?? nil
                if let system {
                    cluster = "system \(system)"
                } else {
                    cluster = try await startTime(on: connection)
                }
            } catch let error as PSQLError where error.serverInfo != nil {
                // Refused by the server (a managed service without the function): the start time.
                cluster = try await startTime(on: connection)
            }
            let database = try await connection.query(
                "SELECT oid::int8 FROM pg_catalog.pg_database WHERE datname = current_database()", logger: .silent
            ).collect().first?.decode(Int64.self)
            return "postgres:\(cluster)/database \(database.map(String.init) ?? "?")"
        }

        /// "started YYYYMMDDHHMMSSUUUUUU" (UTC) of the server `connection` is connected to.
        private static func startTime(on connection: PostgresConnection) async throws -> String {
            let started = try await connection.query(
                """
                SELECT to_char(pg_catalog.pg_postmaster_start_time() AT TIME ZONE 'UTC', 'YYYYMMDDHH24MISSUS')
                """, logger: .silent
            ).collect().first?.decode(String.self)
            return "started \(started ?? "?")"
        }
    }
#endif
