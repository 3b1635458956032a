import Foundation
import PostgresNIO
import ShelfPostgres
import ShelfStore

/// The PostgreSQL server the `--backend postgres` suites use, and the scratch databases they
/// make on it. Each benchmark gets a database of its own (`shelf_bench_<random>`), dropped at
/// the end, so runs never share data.
///
/// ShelfPostgres's `PostgresScratch` does the same for Shelf's tests, but it is `package`
/// API, out of reach of this separate package; this is the same two statements.
struct PostgresBenchServer: Sendable {
    let host: String
    let port: Int
    let user: String
    let password: String?
    let database: String

    /// The default server: `$SHELF_BENCH_POSTGRES`, else the session's server.
    static var defaultURL: String {
        ProcessInfo.processInfo.environment["SHELF_BENCH_POSTGRES"]
            ?? "postgres://postgres:shelf@127.0.0.1:54329/postgres"
    }

    init(url: String) throws {
        guard let components = URLComponents(string: url),
            ["postgres", "postgresql"].contains(components.scheme ?? ""), let host = components.host,
            let user = components.user
        else {
            throw BenchError("--postgres \(url): expected postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        self.init(
            host: host, port: components.port ?? 5432, user: user, password: components.password,
            database: components.path.isEmpty || components.path == "/" ? user : String(components.path.dropFirst()))
    }

    init(host: String, port: Int, user: String, password: String?, database: String) {
        (self.host, self.port, self.user, self.password, self.database) = (host, port, user, password, database)
    }

    /// The same server, another database.
    func with(database: String) -> PostgresBenchServer {
        PostgresBenchServer(host: host, port: port, user: user, password: password, database: database)
    }

    /// The URL of this database, for `Store.open(postgres:)` and `shelf --db`.
    var url: String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = user
        components.password = password
        components.host = host
        components.port = port
        components.path = "/" + database
        return components.string ?? ""
    }

    /// A new plain connection to this database (no pool), for the hand-written baselines.
    func connect() async throws -> PostgresConnection {
        let configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: .disable)
        return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: .bench)
    }

    /// Runs `body` on a new plain connection to this database, closed afterwards.
    @discardableResult
    func withConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await connect()
        do {
            let value = try await body(connection)
            try? await connection.close()
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Creates an empty database and returns it.
    func createScratch() async throws -> PostgresBenchServer {
        let name = "shelf_bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await withConnection { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: .bench)
        }
        return with(database: name)
    }

    /// Drops `scratch` (ending connections still open to it), from this server's database.
    func drop(_ scratch: PostgresBenchServer) async {
        do {
            try await withConnection { connection in
                try await connection.query(
                    PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(scratch.database) WITH (FORCE)"),
                    logger: .bench)
            }
        } catch {
            FileHandle.standardError.write(Data("could not drop \(scratch.database): \(error)\n".utf8))
        }
    }

    /// Runs `body` with a fresh scratch database holding the shelf schema and user #1
    /// (`bench@example.com`), and drops the database afterwards, whatever `body` does.
    func withScratch<T>(_ body: (PostgresBenchServer) async throws -> T) async throws -> T {
        let scratch = try await createScratch()
        do {
            let store = try await Store.open(postgres: scratch.url)
            _ = try await store.users.insert(NewUser(name: "Bench", email: "bench@example.com"))
            await store.close()
            let value = try await body(scratch)
            await drop(scratch)
            return value
        } catch {
            await drop(scratch)
            throw error
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Logger {
    /// Says nothing below `.critical`: the benchmarks' output is their figures.
    static let bench: Logger = {
        var logger = Logger(label: "shelf-benchmarks")
        logger.logLevel = .critical
        return logger
    }()
}

/// SQL and decoding shared by the hand-written PostgreSQL baselines: the statements
/// ShelfPostgres runs (Sources/ShelfPostgres/PostgresItemRepository.swift,
/// ItemQuery+Postgres.swift, PostgresBackend+Live.swift), written out by hand.
enum PostgresBaseline {
    static let itemColumns = "id, user_id, title, notes, status, priority, created_at, updated_at, version"

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// Decodes a row of `itemColumns` as ShelfPostgres does.
    static func item(_ row: PostgresRow) throws -> Item {
        let (id, userID, title, notes, status, priority, created, updated, version) = try row.decode(
            (Int64, Int64, String, String?, String, Int64, Int64, Int64, Int64).self)
        guard let parsed = Item.Status(rawValue: status) else { throw BenchError("item \(id): status \(status)") }
        return Item(
            id: Item.ID(id), userID: User.ID(userID), title: title, notes: notes, status: parsed,
            priority: Int(priority), createdAt: Date(timeIntervalSince1970: Double(created) / 1000),
            updatedAt: Date(timeIntervalSince1970: Double(updated) / 1000), version: version)
    }

    static func items(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> [Item] {
        var items: [Item] = []
        for try await row in try await connection.query(query, logger: .bench) { items.append(try item(row)) }
        return items
    }

    static func integer(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> Int {
        for try await value in try await connection.query(query, logger: .bench).decode(Int64.self) {
            return Int(value)
        }
        throw BenchError("no row from \(query.sql)")
    }

    /// Fills `items` with `rows` items of user #1 on the server, in one statement: the titles,
    /// notes, statuses, priorities and times of `StoreSuite.makeItems`, so that searches find
    /// the same words. Then VACUUM ANALYZE, so both sides read a table with fresh statistics.
    static func fill(_ server: PostgresBenchServer, rows: Int, startingAt first: Int = 0) async throws {
        try await server.withConnection { connection in try await fill(connection, rows: rows, startingAt: first) }
    }

    static func fill(_ connection: PostgresConnection, rows: Int, startingAt first: Int) async throws {
        let words = "ARRAY['moth', 'lamp', 'book', 'apple', 'zebra', 'dune', 'garden', 'letter', 'piano', 'river']"
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO items (user_id, title, notes, status, priority, created_at, updated_at, version)
                    SELECT 1, (\(words))[g % 10 + 1] || ' ' || (\(words))[(g / 10) % 10 + 1] || ' ' || g,
                        CASE WHEN g % 3 = 0 THEN 'notes for item ' || g || ', with a few more words' END,
                        CASE WHEN g % 4 = 0 THEN 'done' ELSE 'open' END, g % 4,
                        1700000000000 + (g / 2) * 1000, 1700000000000 + (g / 2) * 1000, 1
                    FROM generate_series(\(first), \(first + rows - 1)) AS g
                    """), logger: .bench)
        try await connection.query("VACUUM ANALYZE items", logger: .bench)
    }

    /// `uptime`'s load averages, for the report.
    static func machineLoad() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))
            .map { "load average " + $0.split(separator: " ").prefix(3).joined(separator: " ") } ?? "load unknown"
    }
}

/// `search` on PostgreSQL: the filter shapes of `QueryShapeSuite` over `items` items of the
/// same owners, statuses, priorities and times as the SQLite `search` database, in a scratch
/// database dropped afterwards.
func runPostgresShapes(server: PostgresBenchServer, items: Int, runs: Int, report: Report, only: String?) async throws {
    let scratch = try await server.createScratch()
    do {
        report.header()
        report.note("filling \(items) items on PostgreSQL…")
        let setup = try await Store.open(postgres: scratch.url)
        for n in 1...1000 {
            let name = "User " + String(format: "%04d", (n * 7919) % 1000)
            _ = try await setup.users.insert(NewUser(name: name, email: "user\(n)@example.com"))
        }
        await setup.close()
        try await scratch.withConnection { connection in
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO items (user_id, title, notes, status, priority, created_at, updated_at, version)
                        SELECT (g * 7907) % 1000 + 1, 'w' || (g * 40503 % 5000) || 'x ' || g, NULL,
                            CASE WHEN g % 4 = 0 THEN 'done' ELSE 'open' END, g % 4,
                            1600000000000 + g * 30000 + (g % 17) * 1000000,
                            1600000000000 + g * 30000 + (g % 17) * 1000000, 1
                        FROM generate_series(0::bigint, \(items - 1)::bigint) AS g
                        """), logger: .bench)
            try await connection.query("VACUUM ANALYZE", logger: .bench)
        }
        let store = try await Store.open(postgres: scratch.url)
        try await QueryShapeSuite(store: store, runs: runs, report: report, only: only, prefix: "postgres.").run()
        await store.close()
        await server.drop(scratch)
    } catch {
        await server.drop(scratch)
        throw error
    }
}

/// Runs `suites` (`store`, `live`, `load`, `serve`, `search`) on PostgreSQL (`--backend postgres`).
func runPostgres(
    _ suites: [String], server: PostgresBenchServer, report: Report, arguments: [String], runs: Int, rows: Int,
    only: String?
) async throws {
    for suite in suites {
        switch suite {
        case "store":
            try await PostgresStoreSuite(
                server: server, rows: rows, batch: option("--batch", default: 10_000, in: arguments), runs: runs,
                report: report, only: only
            ).run()
        case "live":
            try await PostgresLiveSuite(
                server: server, writes: option("--writes", default: 300, in: arguments), report: report
            ).run()
        case "load": try await runLoad(server: server, arguments: arguments, report: report)
        case "fanout":
            let counts = arguments.firstIndex(of: "--counts").flatMap {
                $0 + 1 < arguments.count ? arguments[$0 + 1] : nil
            }
            try await FanoutSuite(
                items: option("--items", default: 100_000, in: arguments),
                counts: (counts ?? "1,100,1000").split(separator: ",").compactMap { Int($0) },
                seconds: option("--seconds", default: 30, in: arguments),
                rate: option("--rate", default: 20, in: arguments),
                noWait: arguments.contains("--no-wait"), report: report, server: server
            ).run()
        case "serve": try await serveSuite(postgres: server, arguments: arguments, runs: runs, report: report).run()
        case "search":
            try await runPostgresShapes(
                server: server, items: option("--items", default: 1_000_000, in: arguments), runs: runs,
                report: report, only: only)
        default: report.note("\(suite): no PostgreSQL version; skipped")
        }
    }
}

/// The `load` suite on `server`, or on SQLite when nil, with the release shelf binary built
/// beside this one.
func runLoad(server: PostgresBenchServer?, arguments: [String], report: Report) async throws {
    let shelf = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("shelf").path
    try await PostgresLoadSuite(
        server: server, seconds: Double(option("--seconds", default: 30, in: arguments)), shelfPath: shelf,
        report: report
    ).run()
}
