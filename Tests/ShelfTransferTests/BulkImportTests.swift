import Foundation
import ShelfReactive
import ShelfSQLiteBackend
import ShelfStore
import ShelfTestSupport
import Synchronization
import Testing

/// The bulk path of an import (indexes and upkeep triggers dropped, rows written set-based,
/// indexes made again, full-text index rebuilt, change counters moved once, all in the one
/// transaction) leaves exactly what the per-row path leaves.
///
/// Each case runs the real `shelf import` twice on copies of one database: with
/// `SHELF_BULK_IMPORT_MIN_ROWS=1` (every import of a table holding at most four rows per
/// staged row takes the bulk path) and with it at `Int64.max` (none does). The debug log
/// shows which path ran, so a case cannot pass by taking the same path twice.
@Suite struct BulkImportTests {
    static let bulk = ["PATH": "/usr/bin:/bin", "SHELF_BULK_IMPORT_MIN_ROWS": "1", "SHELF_LOG": "debug"]
    static let perRow = [
        "PATH": "/usr/bin:/bin", "SHELF_BULK_IMPORT_MIN_ROWS": String(Int64.max), "SHELF_LOG": "debug",
    ]

    let scratch: Scratch
    /// A database with four users (one whose email is not ASCII) and 40 items, the base of
    /// every case.
    let base: String

    init() throws {
        scratch = try Scratch()
        base = scratch.path("base.sqlite")
        let users = try scratch.file(
            "users.csv",
            "name,email\nAnn,ann@example.com\nBob,bob@example.com\nCid,cid@example.com\nÄda,Äda@example.com\n")
        #expect(try Self.shelf(["import", "users", users, "--db", base, "--quiet"], Self.perRow).status == 0)
        let items = try scratch.file("items.csv", Self.items(1...40, revision: "first"))
        #expect(try Self.shelf(["import", "items", items, "--db", base, "--quiet"], Self.perRow).status == 0)
        _ = try ChildProcess.sqlite3(base, "PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Items `ids` as CSV with every time given (so both runs write the same rows), titles and
    /// notes worth searching.
    static func items(_ ids: ClosedRange<Int>, revision: String, withIDs: Bool = false) -> String {
        let owners = ["ann@example.com", "bob@example.com", "cid@example.com"]
        var text = (withIDs ? "id," : "") + "user,title,notes,status,priority,created_at,updated_at\n"
        for id in ids {
            let notes = id % 5 == 0 ? "" : "\"notes \(revision) on café \(id), with a comma\""
            text += (withIDs ? "\(id)," : "") + owners[id % 3] + ",Item \(id) \(revision) plan\(id % 7),"
            text += notes + ",\(id % 3 == 0 ? "done" : "open"),\(id % 4),"
            text +=
                "2024-01-\(String(format: "%02d", id % 28 + 1))T10:00:00Z,2024-02-01T10:00:\(String(format: "%02d", id % 60))Z\n"
        }
        return text
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let table: String
        let input: String
        let arguments: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "insert", table: "items", input: items(41...140, revision: "new"), arguments: []),
        Case(
            name: "insert with IDs", table: "items", input: items(200...260, revision: "new", withIDs: true),
            arguments: []),
        Case(
            name: "upsert", table: "items", input: items(20...120, revision: "second", withIDs: true),
            arguments: ["--mode", "upsert"]),
        Case(
            name: "replace", table: "items", input: items(30...110, revision: "second", withIDs: true),
            // It deletes the items the file lacks: not a terminal, so it must be told to.
            arguments: ["--mode", "replace", "--yes"]),
        Case(
            name: "skip invalid", table: "items",
            input: items(41...90, revision: "new") + "nobody@example.com,Orphan,,open,0,2024-01-01T00:00:00Z,\n"
                + items(91...130, revision: "new").split(separator: "\n").dropFirst().joined(separator: "\n") + "\n",
            arguments: ["--skip-invalid"]),
        Case(
            name: "users upsert", table: "users",
            input: "name,email,created_at\nANN again,ann@example.com,2024-03-01T00:00:00Z\n"
                + (1...60).map { "User \($0),user\($0)@example.com,2024-03-01T00:00:00Z\n" }.joined(),
            arguments: ["--mode", "upsert"]),
        // An email in another letter case is the same user (`Email.key`): an insert refuses it
        // and names the row on both paths (the bulk path once dropped the key's unique index,
        // and failed at its end, naming no row).
        Case(
            name: "users insert in another letter case", table: "users",
            input: "name,email,created_at\nÄda again,äDA@example.com,2024-03-01T00:00:00Z\n"
                + (1...60).map { "User \($0),user\($0)@example.com,2024-03-01T00:00:00Z\n" }.joined(),
            arguments: ["--skip-invalid"]),
        Case(
            name: "users replace", table: "users",
            input: "name,email,created_at\nBob,bob@example.com,2024-03-01T00:00:00Z\n"
                + (1...60).map { "User \($0),user\($0)@example.com,2024-03-01T00:00:00Z\n" }.joined(),
            // It deletes users who own items: not a terminal, so it must be told to.
            arguments: ["--mode", "replace", "--yes"]),
    ]

    @Test(arguments: cases) func bulkGivesWhatPerRowGives(_ test: Case) throws {
        let input = try scratch.file("input.csv", test.input)
        var states: [String] = []
        var outputs: [String] = []
        for (name, environment) in [("bulk", Self.bulk), ("per-row", Self.perRow)] {
            let database = scratch.path("\(name).sqlite")
            try FileManager.default.copyItem(atPath: base, toPath: database)
            let run = try Self.shelf(["import", test.table, input, "--db", database] + test.arguments, environment)
            #expect(run.status == 0, "\(name): \(run.errors)")
            #expect(
                run.errors.contains("bulk import into \(test.table)") == (name == "bulk"),
                "\(name) took the wrong path: \(run.errors)")
            outputs.append(run.summary)
            states.append(try Self.state(of: database))
        }
        #expect(states[0] == states[1])
        #expect(outputs[0] == outputs[1])
        #expect(states[0].contains("integrity: ok"))
    }

    @Test func aDryRunThroughTheBulkPathChangesNothing() throws {
        let input = try scratch.file("input.csv", Self.items(20...120, revision: "second", withIDs: true))
        let database = scratch.path("dry.sqlite")
        try FileManager.default.copyItem(atPath: base, toPath: database)
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let bulk = try Self.shelf(
            ["import", "items", input, "--db", database, "--mode", "replace", "--dry-run"], Self.bulk)
        #expect(bulk.status == 0 && bulk.errors.contains("bulk import into items"), "\(bulk.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
        let perRow = try Self.shelf(
            ["import", "items", input, "--db", database, "--mode", "replace", "--dry-run"], Self.perRow)
        #expect(bulk.summary == perRow.summary && bulk.summary.contains("19 deleted"), "\(bulk.summary)")
    }

    /// A row the store refuses only once the rows are written (a duplicate ID) fails the whole
    /// bulk import, names the row, and leaves the file byte for byte as it was.
    @Test func aFailingRowLeavesTheDatabaseAsItWas() throws {
        let input = try scratch.file(
            "input.csv",
            Self.items(100...150, revision: "new", withIDs: true)
                + "7,ann@example.com,Taken,,open,0,2024-01-01T00:00:00Z,2024-01-01T00:00:00Z\n")
        let database = scratch.path("fail.sqlite")
        try FileManager.default.copyItem(atPath: base, toPath: database)
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let run = try Self.shelf(["import", "items", input, "--db", database], Self.bulk)
        #expect(run.status != 0)
        #expect(run.errors.contains("bulk import into items"), "\(run.errors)")
        #expect(run.errors.contains(":53:") && run.errors.contains("ID 7 already exists"), "\(run.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
        #expect(!FileManager.default.fileExists(atPath: database + "-wal"))
    }

    /// A live query of another process sees the bulk import as one change, showing every row.
    @Test func aLiveQueryInAnotherProcessSeesOneChange() async throws {
        let database = scratch.path("live.sqlite")
        try FileManager.default.copyItem(atPath: base, toPath: database)
        let store = try Store(path: database)
        let live = try await store.liveItems(matching: ItemQuery(), limit: 5)
        #expect((try? live.value.get())?.totalCount == 40)
        let token = Lifetime.Token()
        let seen = Mutex<[Int?]>([])
        live.observe(during: token.lifetime) { window in seen.withLock { $0.append((try? window.get())?.totalCount) } }
        let input = try scratch.file("input.csv", Self.items(41...540, revision: "new"))
        let run = try Self.shelf(["import", "items", input, "--db", database, "--quiet"], Self.bulk)
        #expect(run.status == 0 && run.errors.contains("bulk import into items"), "\(run.errors)")
        // The tracker notices another process's commit through file events, or its
        // once-a-second check at the latest.
        let deadline = ContinuousClock.now + .seconds(120)
        while seen.withLock({ $0.last }) != 540, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(seen.withLock { $0 } == [40, 540])
    }

    // MARK: Helpers

    /// What a database holds, as text: rows, search results, counters, sequence, schema and
    /// both integrity checks.
    static func state(of database: String) throws -> String {
        let output = database + ".state"
        let sql = """
            SELECT 'item', * FROM items ORDER BY id;
            SELECT 'user', * FROM users ORDER BY id;
            SELECT 'search plan3', rowid FROM items_fts WHERE items_fts MATCH 'plan3' ORDER BY rowid;
            SELECT 'search cafe', rowid FROM items_fts WHERE items_fts MATCH 'cafe AND second' ORDER BY rowid;
            SELECT 'search pl*', count(*) FROM items_fts WHERE items_fts MATCH 'pl*';
            SELECT 'search first', count(*) FROM items_fts WHERE items_fts MATCH 'first';
            SELECT 'changes', * FROM shelf_changes ORDER BY table_name;
            SELECT 'sequence', * FROM sqlite_sequence WHERE name <> 'shelf_change_log' ORDER BY name;
            SELECT 'schema', type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name;
            SELECT 'integrity: ' || integrity_check FROM pragma_integrity_check;
            INSERT INTO items_fts (items_fts) VALUES ('integrity-check');
            SELECT 'fts integrity: ok';
            """
        let status = try ChildProcess("/usr/bin/sqlite3", [database, sql], environment: [:], stdout: output).wait()
        #expect(status == 0)
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    struct Run {
        let status: Int32
        let output: String
        let errors: String

        /// Standard error without the debug log and the time taken: the summary and problems.
        var summary: String {
            errors.split(separator: "\n").filter { !$0.contains(" debug shelf.") }.joined(separator: "\n")
                .replacingOccurrences(of: #" in [0-9.]+ s"#, with: "", options: .regularExpression)
        }
    }

    static func shelf(_ arguments: [String], _ environment: [String: String]) throws -> Run {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-bulk-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(atPath: folder.path + ".out")
            try? FileManager.default.removeItem(atPath: folder.path + ".err")
        }
        let status = try ChildProcess(
            CrashImportTests.shelf, arguments, environment: environment, stdout: folder.path + ".out",
            stderr: folder.path + ".err"
        ).wait()
        return Run(
            status: status, output: try String(contentsOfFile: folder.path + ".out", encoding: .utf8),
            errors: try String(contentsOfFile: folder.path + ".err", encoding: .utf8))
    }
}
