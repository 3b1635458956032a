import Foundation
import ShelfSQLiteBackend
import ShelfStore
import ShelfTestSupport
import Testing

/// `kill -9` of a real `shelf import` process at random moments, some near its commit: the
/// database is intact, its full-text index agrees with its items, and it holds all the rows
/// or none of them.
///
/// The imports take the bulk path (`SHELF_BULK_IMPORT_MIN_ROWS=1`, checked in the debug log of
/// the whole run), so the kills near the end land in its index and full-text rebuild.
@Suite struct CrashImportTests {
    static let rows = 20_000
    static let environment = ["PATH": "/usr/bin:/bin", "SHELF_BULK_IMPORT_MIN_ROWS": "1"]

    @Test func killedImportsLeaveAllOrNothing() async throws {
        let scratch = try Scratch()
        let base = scratch.path("base.sqlite")
        do {
            let store = try Store(path: base)
            try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        }
        var text = "title,user,notes,priority\n"
        for number in 0..<Self.rows {
            text += "Item \(number) of the crash test,ann@example.com,notes for \(number) with words,\(number % 4)\n"
        }
        let items = try scratch.file("items.csv", text)
        let database = scratch.path("shelf.sqlite")
        let arguments = ["import", "items", items, "--db", database, "--quiet"]

        // One import to its end gives the time a whole import takes here.
        try copy(base, to: database)
        let log = scratch.path("whole.log")
        let start = ContinuousClock.now
        #expect(
            try ChildProcess(
                Self.shelf, arguments, environment: Self.environment.merging(["SHELF_LOG": "debug"]) { $1 },
                stderr: log
            ).wait() == 0)
        let whole = ContinuousClock.now - start
        #expect(try check(database) == Self.rows)
        let messages = try String(contentsOfFile: log, encoding: .utf8)
        #expect(messages.contains("bulk import into items"), "not the bulk path: \(messages)")

        var outcomes: [Int?: Int] = [:]
        for run in 0..<24 {
            try copy(base, to: database)
            // A third anywhere, a third near the end (the apply and its commit), a third in
            // between.
            let fraction =
                switch run % 3 {
                case 0: Double.random(in: 0...1)
                case 1: Double.random(in: 0.8...1.05)
                default: Double.random(in: 0.5...0.9)
                }
            let child = try ChildProcess(Self.shelf, arguments, environment: Self.environment)
            try await Task.sleep(for: whole * fraction)
            child.signal(SIGKILL)
            child.wait()
            let count = try check(database)
            #expect(count == 0 || count == Self.rows, "run \(run): \(count) rows after kill -9 at \(fraction)")
            outcomes[count, default: 0] += 1
        }
        print("CrashImportTests: a whole import took \(whole); rows after each kill -9: \(outcomes)")
    }

    /// Runs the integrity checks with the sqlite3 shell; the number of items.
    private func check(_ database: String) throws -> Int? {
        let output = database + ".check"
        let status = try ChildProcess(
            "/usr/bin/sqlite3",
            [
                database,
                "PRAGMA integrity_check; INSERT INTO items_fts(items_fts) VALUES('integrity-check'); "
                    + "SELECT count(*) FROM items;",
            ], environment: ["PATH": "/usr/bin:/bin"], stdout: output
        ).wait()
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(status == 0 && lines.first == "ok", "\(lines)")
        return lines.last.flatMap { Int($0) }
    }

    private func copy(_ source: String, to path: String) throws {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
        try FileManager.default.copyItem(atPath: source, toPath: path)
    }

    /// The built `shelf` executable, beside the test bundle in the products folder.
    static let shelf: String = {
        var folder = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("shelf")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            folder.deleteLastPathComponent()
        }
        return Bundle.main.bundleURL.appendingPathComponent("shelf").path
    }()
}
