import Foundation
import ShelfSQLiteBackend
import ShelfStore
import ShelfTestSupport
import Testing

@testable import ShelfTransfer

/// An items export reads on a thread of its own, pages ahead of the thread that writes
/// (`ReadAhead`). What it writes, and which row's error stops it, must be what reading and
/// writing one row after the other gave.
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
}
