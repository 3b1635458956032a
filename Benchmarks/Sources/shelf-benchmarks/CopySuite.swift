import Foundation
import ShelfSQLiteBackend
import ShelfStore
import Synchronization

/// `shelf-benchmarks copy`: rows per second of the release `shelf copy` in every direction,
/// against the nearest tool on the same rows, in one run (issue 25's "Measure"):
///
/// - SQLite → SQLite against `sqlite3 SOURCE ".backup TARGET"`;
/// - SQLite → PostgreSQL against `sqlite3 -csv … | psql -c "\copy … FROM STDIN CSV"` into a
///   migrated database (the rows through PostgreSQL's COPY, with every index live);
/// - PostgreSQL → SQLite against `psql -c "\copy … TO STDOUT CSV" | sqlite3 … ".import"` into
///   a migrated file;
/// - PostgreSQL → PostgreSQL against `pg_dump SOURCE | psql TARGET`.
///
/// The PostgreSQL directions run when `--postgres URL` (or `$SHELF_BENCH_POSTGRES`) names a
/// server whose user may create databases; `psql` and `pg_dump` must be on PATH. Each command
/// is a process of its own, timed and measured for peak RSS (`FreshProcess`). Rows are
/// items plus users (1,000,000 items of 1,000 users by default: `--items N`, `--users N`).
///
/// `copy.writers_p99_during_copy`: a writer adding an item to the SQLite source every 20 ms,
/// its p99 latency while `shelf copy` of that source runs, against the same writes with no
/// copy running (issue 25: within 2×).
struct CopySuite {
    let items: Int
    let users: Int
    let runs: Int
    let report: Report
    let shelfPath: String
    /// A server URL (its database is only used to create and drop the scratch ones).
    let postgres: String?

    private static let sqlite3 = "/usr/bin/sqlite3"
    private static let itemColumns = "id, user_id, title, notes, status, priority, created_at, updated_at, version"
    private static let userColumns = "id, name, email, email_key, created_at"

    func run() async throws {
        _ = try FreshProcess.probe()
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("source.sqlite").path
        report.note("copy: making \(items) items of \(users) users in \(source)")
        try FreshProcess.setup([shelfPath, "migrate", "--db", source])
        try FreshProcess.setup([Self.sqlite3, source, Self.fill(items: items, users: users)])
        let rows = Double(items + users)
        report.header()

        var shelf: [Double] = []
        var peaks: [Double] = []
        var backup: [Double] = []
        for run in 0..<runs {
            let target = folder.appendingPathComponent("copy-\(run).sqlite").path
            let measured = try FreshProcess.run(shelfPath, ["copy", source, target])
            shelf.append(rows / measured.seconds)
            peaks.append(measured.peakMegabytes)
            let copied = folder.appendingPathComponent("backup-\(run).sqlite").path
            backup.append(rows / (try FreshProcess.run(Self.sqlite3, [source, ".backup '\(copied)'"])).seconds)
            for path in [target, copied] { try? FileManager.default.removeItem(atPath: path) }
        }
        report.compare(
            "copy.sqlite_to_sqlite", unit: "rows/s", shelf: shelf,
            against: [("sqlite3 .backup", backup, "1,000,000 items in ≤ 15 s")])
        report.print(Figure(name: "copy.sqlite_to_sqlite.peak_rss", unit: "MB", value: median(peaks), target: "≤ 64"))
        try await writersDuringCopy(source: source, folder: folder)

        guard let postgres else {
            report.note("copy: no PostgreSQL server (--postgres URL or SHELF_BENCH_POSTGRES); its directions skipped")
            return
        }
        try runPostgres(server: postgres, source: source, folder: folder, rows: rows)
    }

    /// The three directions that involve PostgreSQL.
    private func runPostgres(server: String, source: String, folder: URL, rows: Double) throws {
        var made: [String] = []
        defer { for database in made { try? psql(server, "DROP DATABASE IF EXISTS \(database)") } }
        func database(_ name: String, migrated: Bool) throws -> String {
            let database = "shelf_bench_copy_\(name)_\(UInt32.random(in: 0...UInt32.max))"
            try psql(server, "CREATE DATABASE \(database)")
            made.append(database)
            let url = Self.url(server, database: database)
            if migrated { try FreshProcess.setup([shelfPath, "migrate", "--db", url]) }
            return url
        }
        // The PostgreSQL source every PostgreSQL → … direction reads.
        let pgSource = try database("source", migrated: false)
        try FreshProcess.setup([shelfPath, "copy", source, pgSource])

        var results: [String: (shelf: [Double], baseline: [Double], peaks: [Double])] = [:]
        for run in 0..<runs {
            // SQLite → PostgreSQL.
            let intoShelf = try database("s2p\(run)", migrated: false)
            let toPostgres = try FreshProcess.run(shelfPath, ["copy", source, intoShelf])
            let intoCOPY = try database("s2pcopy\(run)", migrated: true)
            let viaCOPY = try shell(
                "\(Self.sqlite3) -csv \(quoted(source)) 'SELECT \(Self.userColumns) FROM users ORDER BY id' | "
                    + "psql -q -v ON_ERROR_STOP=1 \(quoted(intoCOPY)) -c '\\copy users (\(Self.userColumns)) FROM STDIN CSV' && "
                    + "\(Self.sqlite3) -csv \(quoted(source)) 'SELECT \(Self.itemColumns) FROM items ORDER BY id' | "
                    + "psql -q -v ON_ERROR_STOP=1 \(quoted(intoCOPY)) -c '\\copy items (\(Self.itemColumns)) FROM STDIN CSV'"
            )
            results["copy.sqlite_to_postgres", default: ([], [], [])].shelf.append(rows / toPostgres.seconds)
            results["copy.sqlite_to_postgres", default: ([], [], [])].baseline.append(rows / viaCOPY.seconds)
            results["copy.sqlite_to_postgres", default: ([], [], [])].peaks.append(toPostgres.peakMegabytes)

            // PostgreSQL → SQLite.
            let file = folder.appendingPathComponent("p2s-\(run).sqlite").path
            let toSQLite = try FreshProcess.run(shelfPath, ["copy", pgSource, file])
            let imported = folder.appendingPathComponent("p2s-import-\(run).sqlite").path
            try FreshProcess.setup([shelfPath, "migrate", "--db", imported])
            let viaImport = try shell(
                "psql -q -v ON_ERROR_STOP=1 \(quoted(pgSource)) -c '\\copy (SELECT \(Self.userColumns) FROM users ORDER BY id) TO STDOUT CSV' | "
                    + "\(Self.sqlite3) \(quoted(imported)) '.import --csv /dev/stdin users' && "
                    + "psql -q -v ON_ERROR_STOP=1 \(quoted(pgSource)) -c '\\copy (SELECT \(Self.itemColumns) FROM items ORDER BY id) TO STDOUT CSV' | "
                    + "\(Self.sqlite3) \(quoted(imported)) '.import --csv /dev/stdin items'")
            results["copy.postgres_to_sqlite", default: ([], [], [])].shelf.append(rows / toSQLite.seconds)
            results["copy.postgres_to_sqlite", default: ([], [], [])].baseline.append(rows / viaImport.seconds)
            results["copy.postgres_to_sqlite", default: ([], [], [])].peaks.append(toSQLite.peakMegabytes)
            for path in [file, imported] { try? FileManager.default.removeItem(atPath: path) }

            // PostgreSQL → PostgreSQL.
            let intoCopy = try database("p2p\(run)", migrated: false)
            let betweenServers = try FreshProcess.run(shelfPath, ["copy", pgSource, intoCopy])
            let intoDump = try database("p2pdump\(run)", migrated: false)
            let viaDump = try shell("pg_dump \(quoted(pgSource)) | psql -q -v ON_ERROR_STOP=1 \(quoted(intoDump))")
            results["copy.postgres_to_postgres", default: ([], [], [])].shelf.append(rows / betweenServers.seconds)
            results["copy.postgres_to_postgres", default: ([], [], [])].baseline.append(rows / viaDump.seconds)
            results["copy.postgres_to_postgres", default: ([], [], [])].peaks.append(betweenServers.peakMegabytes)
        }
        let baselines = [
            "copy.sqlite_to_postgres": ("sqlite3 -csv | psql COPY", "1,000,000 items in ≤ 60 s"),
            "copy.postgres_to_sqlite": ("psql COPY | sqlite3 .import", "1,000,000 items in ≤ 30 s"),
            "copy.postgres_to_postgres": ("pg_dump | psql", "—"),
        ]
        for name in baselines.keys.sorted() {
            guard let result = results[name], let baseline = baselines[name] else { continue }
            report.compare(
                name, unit: "rows/s", shelf: result.shelf, against: [(baseline.0, result.baseline, baseline.1)])
            report.print(Figure(name: name + ".peak_rss", unit: "MB", value: median(result.peaks), target: "≤ 64"))
        }
    }

    /// The writer's p99 latency on `source` with no copy running, then while `shelf copy`
    /// copies it into a new file, as many writes each (at least 200). Adds items to `source`.
    private func writersDuringCopy(source: String, folder: URL) async throws {
        let store = try Store(path: source)
        var idle: [Double] = []
        var during: [Double] = []
        do {
            for run in 0..<runs {
                let target = folder.appendingPathComponent("writers-\(run).sqlite").path
                let copy = CopyInBackground()
                let copying = try await Self.writes(to: store, count: 200) {
                    copy.finished
                } start: {
                    copy.start(shelfPath, ["copy", source, target])
                }
                if let error = copy.failure { throw error }
                let quiet = try await Self.writes(to: store, count: copying.count) {
                    true
                } start: {
                }
                during.append(percentile(copying, 99) * 1000)
                idle.append(percentile(quiet, 99) * 1000)
                try? FileManager.default.removeItem(atPath: target)
            }
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        report.compare(
            "copy.writers_p99_during_copy", unit: "ms", shelf: during,
            against: [("the same writes, no copy", idle, "ratio ≤ 2")])
    }

    /// Latencies (s) of items added to `store` one every 20 ms, after `start`, until `done`
    /// and at least `count` of them.
    private static func writes(
        to store: Store, count: Int, until done: () -> Bool, start: () -> Void
    ) async throws -> [Double] {
        var samples: [Double] = []
        start()
        while samples.count < count || !done() {
            let item = NewItem(userID: User.ID(1), title: "writer \(samples.count)", createdAt: Date())
            samples.append(try await time { _ = try await store.items.insert(item) })
            try await Task.sleep(for: .milliseconds(20))
        }
        return samples
    }

    /// SQL that adds `users` users (the first is ID 1) and `items` items spread over them.
    private static func fill(items: Int, users: Int) -> String {
        """
        PRAGMA synchronous = OFF;
        BEGIN;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(users))
        INSERT INTO users (id, name, email, email_key, created_at)
        SELECT i, 'User ' || i, 'user' || i || '@example.com', 'user' || i || '@example.com', 1700000000000 + i FROM n;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(items))
        INSERT INTO items (user_id, title, notes, status, priority, created_at, updated_at)
        SELECT 1 + i % \(users), 'Item ' || i || ' of the benchmark', 'Notes of item ' || i || ' with some words',
            CASE WHEN i % 5 = 0 THEN 'done' ELSE 'open' END, i % 4, 1700000000000 + i, 1700000000000 + i FROM n;
        COMMIT;
        """
    }

    /// Runs `sql` with psql on the database of `url`.
    private func psql(_ url: String, _ sql: String) throws {
        try FreshProcess.setup(["/bin/sh", "-c", "psql -q -v ON_ERROR_STOP=1 \(quoted(url)) -c \(quoted(sql))"])
    }

    /// Runs a shell pipeline, timed and measured as one process tree. Bash, for `pipefail`:
    /// Debian's /bin/sh (dash) exits 2 at `set -o pipefail`, so under it every baseline
    /// pipeline failed and the PostgreSQL directions never reported.
    private func shell(_ command: String) throws -> FreshProcess.Measured {
        try FreshProcess.run("/bin/bash", ["-c", "set -o pipefail; " + command])
    }

    private func quoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// `server` with its database replaced by `database`.
    private static func url(_ server: String, database: String) -> String {
        guard var components = URLComponents(string: server) else { return server }
        components.path = "/" + database
        return components.string ?? server
    }
}

/// A `shelf copy` run on a thread of its own (`FreshProcess.run` blocks), watched from a task.
private final class CopyInBackground: Sendable {
    private let done = Atomic<Bool>(false)
    private let error = Mutex<(any Error)?>(nil)

    /// Whether the command has ended.
    var finished: Bool { done.load(ordering: .acquiring) }
    /// Why it failed, once it has ended; nil when it succeeded.
    var failure: (any Error)? { error.withLock { $0 } }

    func start(_ executable: String, _ arguments: [String]) {
        Thread.detachNewThread {
            do {
                _ = try FreshProcess.run(executable, arguments)
            } catch {
                self.error.withLock { $0 = error }
            }
            self.done.store(true, ordering: .releasing)
        }
    }
}
