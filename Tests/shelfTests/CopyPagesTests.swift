import Foundation
import ShelfTestSupport
import Testing

/// `shelf copy` into a new file of a SQLite store with this build's schema goes page by page
/// (SQLite's backup of one snapshot, issue 25's 15 s for 1,000,000 items), and still gives
/// what the row copy gives: only the rows, derived data made again, nothing of the source's
/// log, undo records, Litestream tables or backup stamp.
@Suite("shelf copy page by page")
struct CopyPagesTests {
    @Test func aStoreOfThisSchemaIsCopiedByPagesLeavingOutWhatIsNotItsRows() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        // What a copy leaves out: an undo record of the browser's (it holds a deleted item's
        // text), Litestream's table, a backup's stamp; and totals made wrong by hand, which the
        // copy counts again from its rows.
        let extra = """
            INSERT INTO bulk_actions (id, kind, status, created_at) VALUES (1, 'delete', NULL, 1);
            INSERT INTO bulk_action_items (action_id, item_id, user_id, title, notes, status, priority, version, written)
              VALUES (1, 99, 1, 'secret title', 'secret notes', 'open', 0, 1, 1);
            CREATE TABLE _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER);
            INSERT INTO _litestream_seq VALUES (1, 42);
            UPDATE shelf_item_counts SET n = n + 5;
            PRAGMA user_version = 77;
            """
        #expect(try await ChildProcess.sqlite3(source, extra) == 0)
        let target = shelf.folder.appendingPathComponent("paged.sqlite").path
        let copied = try await shelf.run(["copy", "--verbose", source, target])
        #expect(copied.status == 0, "\(copied.error)")
        #expect(copied.error.contains("copied page by page"), "\(copied.error)")
        #expect(copied.output.contains("Copied: both sides match."), "\(copied.output)")
        #expect(try CopyFixture.dump(target) == CopyFixture.dump(source))
        let derived = try await ChildProcess.sqlite3Output(
            target,
            """
            SELECT (SELECT count(*) FROM bulk_actions), (SELECT count(*) FROM bulk_action_items),
              (SELECT count(*) FROM shelf_change_log),
              (SELECT count(*) FROM sqlite_schema WHERE name LIKE '\\_litestream%' ESCAPE '\\');
            SELECT kind, sum(n) FROM shelf_item_counts GROUP BY kind ORDER BY kind;
            PRAGMA user_version; PRAGMA journal_mode; PRAGMA integrity_check;
            INSERT INTO items_fts (items_fts, rank) VALUES ('integrity-check', 1);
            INSERT INTO items_trigram (items_trigram, rank) VALUES ('integrity-check', 1);
            """)
        #expect(derived == "0|0|0|0\nc|3\no|3\nu|3\n0\nwal\nok", "\(derived)")
        // The search index and the sequences came across: a search finds a copied item, and a
        // new item gets an ID the source never handed out (the deleted fourth's was 4).
        let found = try await shelf.run(["items", "list", "--db", target, "--query", "zurich"])
        #expect(found.output.contains("Zürich notes"), "\(found.output)\(found.error)")
        let added = try await shelf.run(["items", "add", "--db", target, "--user", "bob@example.com", "--title", "New"])
        #expect(added.status == 0, "\(added.error)")
        let newID = try await ChildProcess.sqlite3Output(target, "SELECT id FROM items WHERE title = 'New'")
        #expect(newID == "5", "\(newID)")
    }

    /// A source whose schema another program changed (a trigger and an index dropped) is
    /// copied row by row, which makes the target's schema its own: the copy has them again.
    @Test func aStoreMissingATriggerIsCopiedRowByRowAndTheCopyHasIt() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        #expect(
            try await ChildProcess.sqlite3(
                source, "DROP TRIGGER items_trigram_after_update; DROP INDEX items_by_title;")
                == 0)
        let target = shelf.folder.appendingPathComponent("mended.sqlite").path
        let copied = try await shelf.run(["copy", "--verbose", source, target])
        #expect(copied.status == 0, "\(copied.error)")
        #expect(copied.error.contains("copied row by row"), "\(copied.error)")
        #expect(try CopyFixture.dump(target) == CopyFixture.dump(source))
        let objects = try await ChildProcess.sqlite3Output(
            target,
            "SELECT count(*) FROM sqlite_schema WHERE name IN ('items_trigram_after_update', 'items_by_title')")
        #expect(objects == "2", "\(objects)")
    }

    /// A row the row copy refuses (its user gone) is refused as that copy refuses it, naming
    /// the row, and leaves no file: the page copy does not carry it.
    @Test func aRowWhoseUserIsGoneIsRefusedAsByTheRowCopy() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let source = shelf.databasePath
        try await CopyFixture.make(source, shelf: shelf)
        let orphan =
            "INSERT INTO items (id, user_id, title, status, priority, created_at, updated_at) "
            + "VALUES (50, 9, 'orphan', 'open', 1, 1, 1)"
        #expect(try await ChildProcess.sqlite3(source, orphan) == 0)
        let target = shelf.folder.appendingPathComponent("refused.sqlite").path
        let copied = try await shelf.run(["copy", source, target])
        #expect(copied.status == 1, "\(copied.output)")
        #expect(copied.error.contains("row 50 names user 9"), "\(copied.error)")
        let left = try FileManager.default.contentsOfDirectory(atPath: shelf.folder.path)
        #expect(!left.contains { $0.hasPrefix("refused.sqlite") || $0.hasPrefix(".refused.sqlite") }, "\(left)")
    }
}
