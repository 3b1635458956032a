#if PostgreSQL
    import Foundation
    import PostgresNIO
    import ShelfPostgres
    import ShelfPostgresTesting
    import ShelfStore

    /// A fresh database per test on the server of `PostgresServer.url`, dropped at the end.
    enum Scratch {
        /// Runs `body` with the URL of a new empty database.
        static func withDatabase(_ body: (String) async throws -> Void) async throws {
            guard let server = PostgresServer.url else { return }
            try await PostgresScratch.withDatabase(serverURL: server, body)
        }

        /// Runs `body` with a backend open on a new database.
        static func withBackend(_ body: (PostgresBackend, String) async throws -> Void) async throws {
            try await withDatabase { url in
                let backend = try await PostgresBackend.open(url: url)
                do {
                    try await body(backend, url)
                } catch {
                    await backend.close()
                    throw error
                }
                await backend.close()
            }
        }

        /// Runs SQL on the database `url` names, on a connection of its own.
        static func execute(_ sql: String, at url: String) async throws {
            let place = try PostgresLocation(url: url)
            try await PostgresBackend.withConnection(to: place) { connection in
                _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "test"))
            }
        }

        /// The first column of every row of `sql`, as text.
        static func strings(_ sql: String, at url: String) async throws -> [String] {
            let place = try PostgresLocation(url: url)
            return try await PostgresBackend.withConnection(to: place) { connection in
                var values: [String] = []
                let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "test"))
                for try await value in rows.decode(String.self) { values.append(value) }
                return values
            }
        }
    }

    extension StoreError {
        /// For `#expect(throws:)`: the code of a thrown `StoreError`.
        static func code(of error: any Error) -> Code? { (error as? StoreError)?.code }
    }
#endif
