import Foundation
import PostgresNIO
import ShelfPostgres
import ShelfReactive
import ShelfStore
import Synchronization

/// `pg.live.*`: from just before a one-row INSERT is sent (autocommit, on a plain
/// `PostgresConnection` of its own) to the observer holding the new 50-item window and count.
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
                    try await PostgresBaseline.fill(shelfDatabase, rows: rows)
                    try await PostgresBaseline.fill(rawDatabase, rows: rows)
                    try await measure(rows: rows, label: label, shelfDatabase: shelfDatabase, rawDatabase: rawDatabase)
                }
            }
        }
        report.note("pg.live done, \(PostgresBaseline.machineLoad())")
    }

    func measure(rows: Int, label: String, shelfDatabase: PostgresBenchServer, rawDatabase: PostgresBenchServer)
        async throws
    {
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

        let rawArrivals = Arrivals()
        let rawListener = try await rawDatabase.connect()
        let rawReader = try await rawDatabase.connect()
        let rawWriter = try await rawDatabase.connect()
        let listening = Arrivals()
        let baseline = Task {
            try await rawListener.listen(on: "shelf_changes") { notifications in
                listening.arrived("listening", count: 0, at: .now)
                for try await _ in notifications {
                    let (items, count) = try await Self.reread(on: rawReader)
                    let now = ContinuousClock.now
                    if let first = items.first { rawArrivals.arrived(first.title, count: count, at: now) }
                }
            }
        }
        guard await listening.wait(for: "listening", count: 0, timeout: 10) != nil else {
            throw BenchError("the baseline's LISTEN was not acknowledged within 10 s")
        }

        var shelf: [Double] = []
        var raw: [Double] = []
        for index in 0..<writes {
            for side in index % 2 == 0 ? [0, 1] : [1, 0] {
                let (writer, arrivals) = side == 0 ? (shelfWriter, shelfArrivals) : (rawWriter, rawArrivals)
                let title = "live write \(index)"
                let start = ContinuousClock.now
                let now = PostgresBaseline.milliseconds(Date())
                try await writer.query(
                    "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, \(title), \(now), \(now))",
                    logger: .bench)
                guard let arrival = await arrivals.wait(for: title, count: rows + index + 1, timeout: 10) else {
                    throw BenchError("\(side == 0 ? "shelf" : "the baseline") never showed '\(title)' within 10 s")
                }
                if side == 0 { shelf.append((arrival - start).seconds) } else { raw.append((arrival - start).seconds) }
            }
        }
        token.end()
        // Closing the listening connection ends its notifications, and so the baseline's task.
        baseline.cancel()
        try? await rawListener.close()
        _ = try? await baseline.value
        for connection in [shelfWriter, rawReader, rawWriter] { try? await connection.close() }
        await store.close()

        report.print(
            Comparison(
                name: "pg.live.latency_p99_\(label)", unit: "ms", shelf: percentile(shelf, 99) * 1e3,
                baseline: percentile(raw, 99) * 1e3, baselineName: "listen+requery", target: "p99 <= 20 ms"))
        report.print(
            Comparison(
                name: "pg.live.latency_median_\(label)", unit: "ms", shelf: median(shelf) * 1e3,
                baseline: median(raw) * 1e3, baselineName: "listen+requery", target: "(median)"))
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
