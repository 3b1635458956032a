import Foundation
import PostgresNIO
import ShelfPostgres
import ShelfReactive
import ShelfStore
import Synchronization

/// `pg.live.*`: from just before a one-row INSERT is sent (autocommit, on a plain
/// `PostgresConnection` of its own) to the observer holding the new 50-item window and count.
/// The writer then sends `NOTIFY shelf_changes` in a statement of its own, as another shelf
/// process does after its commits (`CommitWake`: since the triggers stopped notifying, a
/// commit by a process that does not notify reaches a store at its next check, within a
/// second, and a listener by hand not at all).
///
/// Shelf: `store.liveItems(matching: ItemQuery(), limit: 50)` of a `Store.open(postgres:)` in
/// this process. Baseline, by hand on postgres-nio: `LISTEN shelf_changes` on one connection
/// and, on each notification, the re-read ShelfPostgres makes (BEGIN REPEATABLE READ READ
/// ONLY, the page, the count, COMMIT) on another. Each side has its own database (a NOTIFY
/// reaches only its database's listeners), seeded alike; writes alternate between the sides.
struct PostgresLiveSuite {
    let server: PostgresBenchServer
    let writes: Int
    let report: Report

    func run() async throws {
        report.note("pg.live on \(server.host):\(server.port), \(PostgresBaseline.machineLoad())")
        report.header()
        for (rows, label) in [(1_000, "1k"), (200_000, "200k")] {
            try await server.withScratch { shelfDatabase in
                try await server.withScratch { rawDatabase in
                    try await server.withScratch { oneStatementDatabase in
                        for database in [shelfDatabase, rawDatabase, oneStatementDatabase] {
                            try await PostgresBaseline.fill(database, rows: rows)
                        }
                        try await measure(
                            rows: rows, label: label, shelfDatabase: shelfDatabase,
                            baselines: [
                                (rawDatabase, { @Sendable connection in try await Self.reread(on: connection) }),
                                (
                                    oneStatementDatabase,
                                    { @Sendable connection in try await Self.rereadInOneStatement(on: connection) }
                                ),
                            ])
                    }
                }
            }
        }
        report.note("pg.live done, \(PostgresBaseline.machineLoad())")
    }

    typealias Reread = @Sendable (PostgresConnection) async throws -> ([Item], Int)

    /// One hand-written side: a LISTEN connection, a reader, a writer, and what they saw.
    struct ListenSide {
        let listener: PostgresConnection
        let reader: PostgresConnection
        let writer: PostgresConnection
        let arrivals = Arrivals()
        let task: Task<Void, any Error>

        init(database: PostgresBenchServer, reread: @escaping Reread) async throws {
            listener = try await database.connect()
            reader = try await database.connect()
            writer = try await database.connect()
            let (listener, reader, arrivals) = (listener, reader, arrivals)
            let listening = Arrivals()
            task = Task {
                try await listener.listen(on: "shelf_changes") { notifications in
                    listening.arrived("listening", count: 0, at: .now)
                    for try await _ in notifications {
                        let (items, count) = try await reread(reader)
                        let now = ContinuousClock.now
                        if let first = items.first { arrivals.arrived(first.title, count: count, at: now) }
                    }
                }
            }
            guard await listening.wait(for: "listening", count: 0, timeout: 10) != nil else {
                throw BenchError("the baseline's LISTEN was not acknowledged within 10 s")
            }
        }

        func close() async {
            // Closing the listening connection ends its notifications, and so the task.
            task.cancel()
            try? await listener.close()
            _ = try? await task.value
            for connection in [reader, writer] { try? await connection.close() }
        }
    }

    func measure(
        rows: Int, label: String, shelfDatabase: PostgresBenchServer,
        baselines: [(database: PostgresBenchServer, reread: Reread)]
    ) async throws {
        let store = try await Store.open(postgres: shelfDatabase.url)
        let window = try await store.liveItems(matching: ItemQuery(), limit: 50)
        let shelfArrivals = Arrivals()
        let token = Lifetime.Token()
        window.observe(during: token.lifetime) { result in
            let now = ContinuousClock.now
            if case .success(let window) = result, let first = window.items.first {
                shelfArrivals.arrived(first.title, count: window.totalCount, at: now)
            }
        }
        let shelfWriter = try await shelfDatabase.connect()
        var sides: [ListenSide] = []
        for baseline in baselines {
            sides.append(try await ListenSide(database: baseline.database, reread: baseline.reread))
        }

        // Index 0 is Shelf, then the baselines in order; the order rotates every write.
        var latencies = [[Double]](repeating: [], count: sides.count + 1)
        for index in 0..<writes {
            for step in 0...sides.count {
                let side = (index + step) % (sides.count + 1)
                let (writer, arrivals) =
                    side == 0 ? (shelfWriter, shelfArrivals) : (sides[side - 1].writer, sides[side - 1].arrivals)
                let title = "live write \(index)"
                let start = ContinuousClock.now
                let now = PostgresBaseline.milliseconds(Date())
                try await writer.query(
                    "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, \(title), \(now), \(now))",
                    logger: .bench)
                try await writer.query("SELECT pg_notify('shelf_changes', '')", logger: .bench)
                guard let arrival = await arrivals.wait(for: title, count: rows + index + 1, timeout: 10) else {
                    throw BenchError("side \(side) (0 is shelf) never showed '\(title)' within 10 s")
                }
                latencies[side].append((arrival - start).seconds)
            }
        }
        token.end()
        for side in sides { await side.close() }
        try? await shelfWriter.close()
        await store.close()

        let names = ["listen+requery", "listen+one-statement"]
        for (offset, samples) in latencies.dropFirst().enumerated() {
            let name = names[offset]
            report.print(
                Comparison(
                    name: "pg.live.latency_p99_\(label)", unit: "ms", shelf: percentile(latencies[0], 99) * 1e3,
                    baseline: percentile(samples, 99) * 1e3, baselineName: name,
                    target: offset == 0 ? "p99 <= 20 ms" : "(the re-read as one statement)"))
            report.print(
                Comparison(
                    name: "pg.live.latency_median_\(label)", unit: "ms", shelf: median(latencies[0]) * 1e3,
                    baseline: median(samples) * 1e3, baselineName: name, target: "(median)"))
        }
    }

    /// The re-read as one statement (one round trip instead of four; a single statement reads
    /// one snapshot, so page and count still agree). A reference for ShelfPostgres, not what it
    /// runs today.
    static func rereadInOneStatement(on connection: PostgresConnection) async throws -> ([Item], Int) {
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT (SELECT count(*) FROM items), \(PostgresBaseline.itemColumns)
                    FROM items ORDER BY created_at DESC, id DESC LIMIT $1
                    """, binds: binds(50)), logger: .bench)
        var items: [Item] = []
        var count = 0
        for try await row in rows {
            let (total, id, userID, title, notes, status, priority, created, updated, version) = try row.decode(
                (Int64, Int64, Int64, String, String?, String, Int64, Int64, Int64, Int64).self)
            count = Int(total)
            guard let parsed = Item.Status(rawValue: status) else { throw BenchError("item \(id): status \(status)") }
            items.append(
                Item(
                    id: Item.ID(id), userID: User.ID(userID), title: title, notes: notes, status: parsed,
                    priority: Int(priority), createdAt: Date(timeIntervalSince1970: Double(created) / 1000),
                    updatedAt: Date(timeIntervalSince1970: Double(updated) / 1000), version: version))
        }
        return (items, count)
    }

    /// The re-read of a live 50-item window and its count, as ShelfPostgres runs it.
    static func reread(on connection: PostgresConnection) async throws -> ([Item], Int) {
        try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: .bench)
        let items = try await PostgresBaseline.items(
            PostgresQuery(
                unsafeSQL:
                    "SELECT \(PostgresBaseline.itemColumns) FROM items ORDER BY created_at DESC, id DESC LIMIT $1",
                binds: binds(50)),
            on: connection)
        let count = try await PostgresBaseline.integer("SELECT count(*) FROM items", on: connection)
        try await connection.query("COMMIT", logger: .bench)
        return (items, count)
    }
}

/// When an observer last showed a window whose first title and count are awaited.
final class Arrivals: Sendable {
    private struct State {
        var latest: (title: String, count: Int, at: ContinuousClock.Instant)?
        var waiter: (title: String, count: Int, continuation: CheckedContinuation<ContinuousClock.Instant?, Never>)?
    }
    private let state = Mutex(State())

    /// Records a window (from any thread); resumes the waiter it satisfies, outside the lock.
    func arrived(_ title: String, count: Int, at instant: ContinuousClock.Instant) {
        let resume = state.withLock { state -> CheckedContinuation<ContinuousClock.Instant?, Never>? in
            state.latest = (title, count, instant)
            guard let waiter = state.waiter, waiter.title == title, waiter.count == count else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        resume?.resume(returning: instant)
    }

    /// When the window with `title` first and `count` items arrived (now or already); nil
    /// after `timeout` seconds.
    func wait(for title: String, count: Int, timeout: Double) async -> ContinuousClock.Instant? {
        let timer = Task {
            try await Task.sleep(for: .seconds(timeout))
            let resume = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter?.continuation
            }
            resume?.resume(returning: nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let done = state.withLock { state -> ContinuousClock.Instant? in
                if let latest = state.latest, latest.title == title, latest.count == count { return latest.at }
                state.waiter = (title, count, continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }
}
