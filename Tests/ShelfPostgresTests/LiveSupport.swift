#if PostgreSQL
    #if canImport(Glibc)
        import Glibc
    #endif
    import Foundation
    import Logging
    import PostgresNIO
    import ShelfPostgres
    import ShelfPostgresTesting
    import ShelfReactive
    import ShelfStore
    import Synchronization
    import Testing

    /// A scratch database of its own for one live-query test: `users` and `items` tables with the
    /// change triggers the backend's migration installs, and `knobs`, a table without them.
    struct LiveTestDatabase: Sendable {
        /// What a test opened, closed when it ends (passed or not: postgres-nio asserts that a
        /// connection is closed before it is released).
        private final class Opened: Sendable {
            let connections = Mutex<[PostgresConnection]>([])
            let feeds = Mutex<[PostgresChangeFeed]>([])
        }

        let name: String
        /// Connects to this database.
        let configuration: PostgresConnection.Configuration
        /// Connects to the server's own database (the URL's), to create and drop this one.
        let serverConfiguration: PostgresConnection.Configuration
        private let opened = Opened()

        static let logger = Logger(label: "shelf.tests.postgres-live", factory: { _ in SwiftLogNoOpLogHandler() })

        /// The schema the tests read: the change log's contract as the backend's migration 0008
        /// installs it (the log, its pruning horizon, a row written by a trigger for every
        /// changed row), with the tables' IDs only.
        static let schema = [
            """
            CREATE TABLE shelf_change_log (
                seq bigint GENERATED ALWAYS AS IDENTITY (CACHE 1) PRIMARY KEY,
                xid xid8 NOT NULL DEFAULT pg_current_xact_id(), table_name text NOT NULL,
                operation text NOT NULL, row_id bigint,
                old_owner bigint, new_owner bigint, old_status text, new_status text,
                old_priority bigint, new_priority bigint, old_created bigint, new_created bigint,
                old_updated bigint, new_updated bigint, old_title text, new_title text, text_changed boolean)
            """,
            "CREATE TABLE shelf_change_log_horizon (pruned_through bigint NOT NULL)",
            "INSERT INTO shelf_change_log_horizon VALUES (0)",
            """
            CREATE FUNCTION shelf_log_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO shelf_change_log (table_name, operation, row_id)
                VALUES (TG_TABLE_NAME, left(TG_OP, 1), CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
                RETURN NULL;
            END $$
            """,
            """
            CREATE FUNCTION shelf_log_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN INSERT INTO shelf_change_log (table_name, operation) VALUES (TG_TABLE_NAME, 'T'); RETURN NULL; END $$
            """,
            "CREATE TABLE users (id bigserial PRIMARY KEY, name text NOT NULL)",
            "CREATE TABLE items (id bigserial PRIMARY KEY, title text NOT NULL, priority integer NOT NULL DEFAULT 0)",
            "CREATE TABLE knobs (divisor integer NOT NULL)",
            "INSERT INTO knobs VALUES (1)",
            """
            CREATE TRIGGER users_log AFTER INSERT OR UPDATE OR DELETE ON users
                FOR EACH ROW EXECUTE FUNCTION shelf_log_change()
            """,
            """
            CREATE TRIGGER items_log AFTER INSERT OR UPDATE OR DELETE ON items
                FOR EACH ROW EXECUTE FUNCTION shelf_log_change()
            """,
            "CREATE TRIGGER users_truncate AFTER TRUNCATE ON users EXECUTE FUNCTION shelf_log_truncate()",
            "CREATE TRIGGER items_truncate AFTER TRUNCATE ON items EXECUTE FUNCTION shelf_log_truncate()",
        ]

        /// Runs `body` with a fresh database, then drops it (closing whatever is still connected).
        /// It holds one of the places scratch databases share (`PostgresScratch.withPlace`): each
        /// test holds several connections, and two dozen at once reached a stock server's 100.
        static func with(_ body: (LiveTestDatabase) async throws -> Void) async throws {
            try await PostgresScratch.withPlace { try await withNew(body) }
        }

        private static func withNew(_ body: (LiveTestDatabase) async throws -> Void) async throws {
            let url = try #require(PostgresServer.url.flatMap(URLComponents.init(string:)))
            let server = PostgresConnection.Configuration(
                host: url.host ?? "127.0.0.1", port: url.port ?? 5432, username: url.user ?? "postgres",
                password: url.password, database: url.path.isEmpty ? nil : String(url.path.dropFirst()), tls: .disable)
            let name = "shelf_live_\(UInt64.random(in: 0...UInt64.max))"
            var configuration = server
            configuration.database = name
            let database = LiveTestDatabase(name: name, configuration: configuration, serverConfiguration: server)
            try await database.onServer {
                try await $0.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
            }
            do {
                let connection = try await database.connect()
                for statement in schema {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await body(database)
            } catch {
                await database.closeEverything()
                try? await database.drop()
                throw error
            }
            await database.closeEverything()
            try await database.drop()
        }

        /// A connection to this database, closed when the test ends.
        func connect() async throws -> PostgresConnection {
            let connection = try await PostgresConnection.connect(
                configuration: configuration, id: 1, logger: Self.logger)
            opened.connections.withLock { $0.append(connection) }
            return connection
        }

        private func closeEverything() async {
            for feed in opened.feeds.withLock({ $0 }) { await feed.close() }
            for connection in opened.connections.withLock({ $0 }) { try? await connection.close() }
        }

        /// Runs `body` on a connection to the server's own database.
        @discardableResult
        func onServer<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
            let connection = try await PostgresConnection.connect(
                configuration: serverConfiguration, id: 0, logger: Self.logger)
            do {
                let result = try await body(connection)
                try await connection.close()
                return result
            } catch {
                try? await connection.close()
                throw error
            }
        }

        private func drop() async throws {
            try await onServer {
                try await $0.query(
                    PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: Self.logger)
            }
        }

        /// A feed on this database that logs to `logger` (by default nothing), closed when the
        /// test ends. `lossGrace`: the feed's (a test of a reconnect that must fit in it gives a
        /// long one, so that a loaded machine cannot make the reconnect late).
        func makeFeed(
            logger: Logger = LiveTestDatabase.logger, lossGrace: Duration = .seconds(1)
        ) -> PostgresChangeFeed {
            let feed = PostgresChangeFeed(configuration: configuration, logger: logger, lossGrace: lossGrace)
            opened.feeds.withLock { $0.append(feed) }
            return feed
        }

        /// The process ID of the feed's listening connection, or nil when there is none.
        func listenerPID() async throws -> Int? {
            try await onServer { connection in
                let rows = try await connection.query(
                    """
                    SELECT pid FROM pg_stat_activity
                    WHERE datname = \(name) AND application_name = 'shelf-change-feed'
                    """, logger: Self.logger)
                for try await pid in rows.decode(Int.self) { return pid }
                return nil
            }
        }
    }

    extension PostgresConnection {
        /// Runs each statement, in order.
        func run(_ statements: String...) async throws {
            for statement in statements {
                try await query(PostgresQuery(unsafeSQL: statement), logger: LiveTestDatabase.logger)
            }
        }

        /// The one integer that `sql` selects.
        func integer(_ sql: String) async throws -> Int {
            let rows = try await query(PostgresQuery(unsafeSQL: sql), logger: LiveTestDatabase.logger)
            for try await value in rows.decode(Int.self) { return value }
            throw StoreError(.notFound, "\(sql) returned no row")
        }
    }

    /// Counts calls from any task.
    final class Counter: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func increment() { count.withLock { $0 += 1 } }
    }

    /// Every value a property publishes after now, in order.
    final class Recorder<Value: Sendable>: Sendable {
        private final class Storage: Sendable {
            let values = Mutex<[Value]>([])
        }
        private let storage = Storage()
        private let token = Lifetime.Token()

        init(_ property: Property<Value>) {
            property.changes.observe(during: token.lifetime) { [storage] value in
                storage.values.withLock { $0.append(value) }
            }
        }

        var recorded: [Value] { storage.values.withLock { $0 } }
    }

    /// Keeps every log event, whatever its level, for tests that check what is logged and how.
    struct CapturingLogHandler: LogHandler {
        final class Events: Sendable {
            private let events = Mutex<[(level: Logger.Level, message: String)]>([])
            func append(_ level: Logger.Level, _ message: String) { events.withLock { $0.append((level, message)) } }
            var all: [(level: Logger.Level, message: String)] { events.withLock { $0 } }
        }

        let events: Events
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        func log(event: LogEvent) {
            events.append(event.level, event.message.description)
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
    }

    /// A TCP port on 127.0.0.1 that takes connections (the kernel completes them from the
    /// backlog) and never answers: a server that hangs.
    final class SilentServer {
        let port: Int
        private let descriptor: Int32

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let size = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, size) }
            }
            var length = size
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            guard descriptor >= 0, bound == 0, listen(descriptor, 16) == 0, named == 0 else {
                let failure = errno
                if descriptor >= 0 { close(descriptor) }
                throw StoreError(.database, "could not open a silent TCP server on 127.0.0.1 (errno \(failure))")
            }
            self.descriptor = descriptor
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(descriptor) }
    }

    /// A door that tasks wait at until it opens, once.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        /// Returns once the gate is open (at once when it is).
        func wait() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state -> Bool in
                    if !state.open { state.waiters.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }

        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    struct GaveUpWaiting: Error, CustomStringConvertible {
        let what: String
        var description: String { "gave up waiting until \(what)" }
    }

    /// Waits, polling every 10 ms, until `condition` holds; fails the test after `limit`. Not a
    /// timing assertion: the limit is only there so that a broken feed fails instead of hanging.
    func waitUntil(
        _ what: String, limit: Duration = .seconds(180), sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + limit
        while try await !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("gave up waiting (\(limit)) until \(what)", sourceLocation: sourceLocation)
                throw GaveUpWaiting(what: what)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
#endif
