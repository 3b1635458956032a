#if PostgreSQL
    internal import Foundation
    internal import Logging
    internal import PostgresNIO
    package import ShelfPostgres
    internal import ShelfStore

    /// Scratch databases for tests and benchmarks: each gets a fresh, uniquely named database
    /// of its own on a shared server, so runs never share data.
    package enum PostgresScratch {
        /// Creates an empty database `shelf_test_<random>` on the server `serverURL` names (its
        /// user must be allowed to create databases) and returns its URL, password included.
        /// Not limited: prefer `withDatabase(serverURL:_:)`, which is.
        package static func create(serverURL: String) async throws -> String {
            let server = try PostgresLocation(url: serverURL)
            let name = "shelf_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            try await PostgresBackend.withConnection(to: server) { connection in
                _ = try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: .silent)
            }
            return url(of: server.with(database: name))
        }

        /// Drops the database `url` names, ending the connections still open to it. Connects
        /// to the server's `postgres` database to do it.
        package static func drop(url: String) async throws {
            let target = try PostgresLocation(url: url)
            let quoted = "\"" + target.database.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            try await PostgresBackend.withConnection(to: target.with(database: "postgres")) { connection in
                _ = try await connection.query(
                    PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(quoted) WITH (FORCE)"), logger: .silent)
            }
        }

        /// How many scratch databases of `withDatabase` may be in use at once in this process:
        /// `SHELF_TEST_POSTGRES_DATABASES`, else 4. Each test holds a few connections (a pool of
        /// up to four, a change feed, an import's own), so a test run in parallel stays well
        /// inside a stock server's `max_connections` of 100, which it shares with others.
        package static let concurrentLimit: Int = {
            let text = ProcessInfo.processInfo.environment["SHELF_TEST_POSTGRES_DATABASES"] ?? ""
            return Int(text).map { max(1, $0) } ?? 4
        }()

        private static let gate = ScratchGate(limit: concurrentLimit)

        /// Whether the running task already holds a place (nested uses do not wait for one,
        /// so they cannot wait for themselves).
        @TaskLocal private static var holdsPlace = false

        /// Runs `body` with the URL of a new empty database on the server `serverURL` names,
        /// and drops the database afterwards (also when `body` throws). At most
        /// `concurrentLimit` of these run at once in a process; the others wait their turn
        /// (suspended, no thread held) before their database is made.
        package static func withDatabase<T>(
            serverURL: String, isolation: isolated (any Actor)? = #isolation, _ body: (String) async throws -> T
        ) async throws -> T {
            try await withPlace { try await withNewDatabase(serverURL: serverURL, body) }
        }

        /// Runs `body` holding one of the `concurrentLimit` places that scratch databases share
        /// in this process: for a test that makes its own scratch database (or otherwise holds
        /// several connections) without `withDatabase`. Waits its turn, suspended; a task that
        /// already holds a place does not wait again.
        package static func withPlace<T>(
            isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
        ) async throws -> T {
            if holdsPlace { return try await body() }
            await gate.enter()
            do {
                let value = try await $holdsPlace.withValue(true) { try await body() }
                await gate.leave()
                return value
            } catch {
                await gate.leave()
                throw error
            }
        }

        private static func withNewDatabase<T>(
            serverURL: String, isolation: isolated (any Actor)? = #isolation, _ body: (String) async throws -> T
        ) async throws -> T {
            let url = try await create(serverURL: serverURL)
            let value: T
            do {
                value = try await body(url)
            } catch {
                try? await drop(url: url)
                throw error
            }
            try await drop(url: url)
            return value
        }

        /// Runs `body` with the URL of the database `databaseURL` names, for a new role that
        /// logs in with a password and owns the database: tests of password handling on a
        /// server whose own URL has none. Afterwards the role's objects go back to the
        /// server's user and the role is dropped.
        package static func withPasswordUser<T>(databaseURL: String, _ body: (String) async throws -> T)
            async throws -> T
        {
            let owner = try PostgresLocation(url: databaseURL)
            let suffix = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let role = "shelf_test_role_" + suffix.prefix(12)
            let password = "pw:@/" + suffix.suffix(12)
            let quotedDatabase = "\"" + owner.database.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            try await PostgresBackend.withConnection(to: owner) { connection in
                _ = try await connection.query(
                    PostgresQuery(unsafeSQL: "CREATE ROLE \(role) LOGIN PASSWORD '\(password)'"), logger: .silent)
                _ = try await connection.query(
                    PostgresQuery(unsafeSQL: "ALTER DATABASE \(quotedDatabase) OWNER TO \(role)"), logger: .silent)
            }
            var place = owner
            place.user = role
            place.password = password
            let value: Result<T, any Error>
            do {
                value = .success(try await body(url(of: place)))
            } catch {
                value = .failure(error)
            }
            try await PostgresBackend.withConnection(to: owner) { connection in
                _ = try await connection.query(
                    PostgresQuery(unsafeSQL: "REASSIGN OWNED BY \(role) TO CURRENT_USER"), logger: .silent)
                _ = try await connection.query(PostgresQuery(unsafeSQL: "DROP OWNED BY \(role)"), logger: .silent)
                _ = try await connection.query(PostgresQuery(unsafeSQL: "DROP ROLE \(role)"), logger: .silent)
            }
            return try value.get()
        }

        /// `location` as a URL, password included.
        package static func url(of location: PostgresLocation) -> String {
            var components = URLComponents()
            components.scheme = "postgres"
            components.user = location.user
            components.password = location.password
            components.host = location.host.contains(":") ? "[\(location.host)]" : location.host
            components.port = location.port
            components.path = "/" + location.database
            if location.tlsMode != .disable {
                components.queryItems = [URLQueryItem(name: "sslmode", value: location.tlsMode.rawValue)]
            }
            return components.string ?? ""
        }
    }

    /// A counting semaphore for tasks: `enter` suspends (holding no thread) while `limit`
    /// tasks are inside; `leave` lets the longest-waiting one in.
    private actor ScratchGate {
        private let limit: Int
        private var inside = 0
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(limit: Int) {
            self.limit = limit
        }

        func enter() async {
            if inside < limit {
                inside += 1
                return
            }
            // The place is handed over by `leave`, which keeps `inside` as it is.
            await withCheckedContinuation { waiting.append($0) }
        }

        func leave() {
            if waiting.isEmpty {
                inside -= 1
            } else {
                waiting.removeFirst().resume()
            }
        }
    }
#endif
