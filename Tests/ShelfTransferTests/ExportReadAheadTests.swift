import Foundation
import ShelfSQLiteBackend
import ShelfStore
import ShelfTestSupport
import Testing

@testable import ShelfTransfer

/// An items export reads on a thread of its own, pages ahead of the thread that writes
/// (`ReadAhead`), and looks owners' emails up from the users it read (`OwnerEmails`) instead
/// of joining them to every item. What it writes, and which row's error stops it, must be what
/// reading and writing one row after the other gave.
@Suite("Export read ahead")
struct ExportReadAheadTests {
    /// A store of `count` items (titles `item N`, every fifth with notes) of three users, made
    /// by `sqlite3` for speed; closed.
    private static func store(_ path: String, items count: Int) async throws {
        let store = try Store(path: path)
        for name in ["ann", "bob", "cy"] {
            try await store.users.insert(NewUser(name: name, email: "\(name)@example.com"))
        }
        await store.close()
        let filled = try await ChildProcess.sqlite3(
            path,
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
            INSERT INTO items (user_id, title, notes, status, priority, created_at, updated_at)
            SELECT 1 + i % 3, 'item ' || i, CASE WHEN i % 5 = 0 THEN 'note, "' || i || '"' END,
                CASE WHEN i % 2 = 0 THEN 'done' ELSE 'open' END, i % 4, 1700000000000 + i, 1700000000000 + 2 * i
            FROM n;
            """)
        #expect(filled == 0)
    }

    /// Rows pages apart, with an error the reading thread finds (a time stored as text, in row
    /// 2,900) after one the writing thread finds (a NUL in row 1,500): the first in row order
    /// stops the export, as when one thread did both, and no file is left. Also passes without
    /// the read-ahead (one thread); it fails when the read's end is handed over before the pages
    /// read before it (checked by making `nextPage` look at the end first: it named row 2,900).
    @Test(arguments: [TransferFormat.csv, .ndjson])
    func theFirstFailingRowInRowOrderStopsTheExport(_ format: TransferFormat) async throws {
        let scratch = try Scratch()
        let path = scratch.path("shelf.sqlite")
        try await Self.store(path, items: 5_000)
        #expect(
            try await ChildProcess.sqlite3(
                path,
                "DROP TRIGGER items_refuse_nul_before_update; "
                    + "UPDATE items SET notes = cast(x'610062' as text) WHERE id = 1500; "
                    + "UPDATE items SET created_at = 'soon' WHERE id = 2900") == 0)
        let store = try Store(path: path)
        let target = scratch.path("out.\(format.rawValue)")
        await #expect {
            try await Exporter(store: store).exportItems(to: .file(target), options: ExportOptions(format: format))
        } throws: { error in
            "\(error)".contains("item 1500 holds a NUL character in its notes")
        }
        #expect(!FileManager.default.fileExists(atPath: target), "no file is left")
        // Then the reading thread's own error, pages in.
        #expect(try await ChildProcess.sqlite3(path, "UPDATE items SET notes = NULL WHERE id = 1500") == 0)
        await #expect {
            try await Exporter(store: store).exportItems(to: .file(target), options: ExportOptions(format: format))
        } throws: { error in
            "\(error)".contains("2900")
        }
        #expect(!FileManager.default.fileExists(atPath: target), "no file is left")
        // The reading thread ended with the export: the store closes (it waits for its readers).
        await store.close()
    }

    /// An export of many pages gives the bytes the same rows gave when the owners' emails were
    /// joined: checked against a store of more users than `OwnerEmails.limit` (100,000), which joins.
    @Test func ownersLookedUpWriteWhatTheJoinWrote() async throws {
        let scratch = try Scratch()
        let path = scratch.path("shelf.sqlite")
        try await Self.store(path, items: 3_000)
        let store = try Store(path: path)
        for format in [TransferFormat.csv, .json] {
            try await Exporter(store: store).exportItems(
                to: .file(scratch.path("looked-up.\(format.rawValue)")), options: ExportOptions(format: format))
        }
        await store.close()
        #expect(
            try await ChildProcess.sqlite3(
                path,
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
                INSERT INTO users (name, email, created_at) SELECT 'many ' || i, 'many' || i || '@example.com', 0 FROM n;
                """) == 0)
        let many = try Store(path: path)
        for format in [TransferFormat.csv, .json] {
            try await Exporter(store: many).exportItems(
                to: .file(scratch.path("joined.\(format.rawValue)")), options: ExportOptions(format: format))
            let lookedUp = try Data(contentsOf: URL(fileURLWithPath: scratch.path("looked-up.\(format.rawValue)")))
            let joined = try Data(contentsOf: URL(fileURLWithPath: scratch.path("joined.\(format.rawValue)")))
            #expect(lookedUp == joined)
            #expect(lookedUp.count > 50_000, "pages of rows, not one")
        }
        await many.close()
    }

    /// The scan of every item for items whose user is gone is skipped when the item totals by
    /// owner name no missing user. Were the totals out of step, the export still refuses such an
    /// item when it reaches it, naming it, and leaves no file. Fails without the lookup's check
    /// (the item was written with an empty owner, or left out).
    @Test func anItemWhoseUserIsGoneStopsTheExportWhenTheTotalsMissIt() async throws {
        let scratch = try Scratch()
        let path = scratch.path("shelf.sqlite")
        try await Self.store(path, items: 3_000)
        #expect(
            try await ChildProcess.sqlite3(
                path,
                "PRAGMA foreign_keys = OFF; DELETE FROM users WHERE email = 'cy@example.com'; "
                    + "DELETE FROM shelf_item_counts WHERE kind = 'o' AND bucket = 3") == 0)
        let store = try Store(path: path)
        let target = scratch.path("out.csv")
        await #expect {
            try await Exporter(store: store).exportItems(to: .file(target), options: ExportOptions(format: .csv))
        } throws: { error in
            "\(error)".contains("item 2 in") && "\(error)".contains("names user 3, who no longer exists")
                && "\(error)".contains("PRAGMA foreign_key_check(items)")
        }
        #expect(!FileManager.default.fileExists(atPath: target), "no file is left")
        await store.close()
    }

    /// An export cancelled while its pipe's reader reads nothing (the writing thread waits in
    /// `poll`, the reading thread for room for its pages) throws `CancellationError`, and its
    /// reading thread ends with it: the store then closes (closing waits for every reader).
    /// The limit catches a hang, not slowness: at load 40 (stop 17's CI beside a hostile tester
    /// and benchmarks) making the 20,000 items alone took most of 2 minutes.
    @Test(.timeLimit(.minutes(10)))
    func aCancelledExportToAStalledPipeEndsWithItsRead() async throws {
        let scratch = try Scratch()
        let path = scratch.path("shelf.sqlite")
        try await Self.store(path, items: 20_000)
        let store = try Store(path: path)
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { for end in ends { close(end) } }
        let destination = ExportDestination.file("/dev/fd/\(ends[1])")
        let export = Task {
            try await Exporter(store: store).exportItems(to: destination, options: ExportOptions(format: .csv))
        }
        // The first byte says the export writes; the pipe then fills, and both threads wait.
        var byte: UInt8 = 0
        #expect(read(ends[0], &byte, 1) == 1)
        try await Task.sleep(for: .milliseconds(200))
        export.cancel()
        await #expect(throws: CancellationError.self) { try await export.value }
        await store.close()
    }
}
