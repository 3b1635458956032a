import Foundation
import ShelfReactive
import ShelfSQLiteBackend
import ShelfStore
import ShelfTestSupport
import Testing

/// A bulk change of most of a SQLite store's items sets aside the indexes on the columns it
/// writes and the change log's per-row entries, and makes them again once: the rows, versions,
/// undo and redo are those of the row-by-row path; the schema is whole afterwards; live queries
/// see the change; a failure leaves everything as it was.
@Suite struct BulkRebuildTests {
    /// Two stores with the same 40 items of three owners: one that writes row by row (the
    /// threshold out of reach), one that sets its indexes aside for any bulk change.
    private struct Pair {
        let folder: TemporaryFolder
        let rowByRow: Store
        let setAside: Store
        let owners: [User.ID]

        init() async throws {
            folder = try TemporaryFolder()
            rowByRow = try Store(
                path: folder.path("rows.sqlite"), configuration: Store.Configuration(bulkActionMinimumRows: 1_000_000))
            setAside = try Store(
                path: folder.path("aside.sqlite"), configuration: Store.Configuration(bulkActionMinimumRows: 1))
            var owners: [User.ID] = []
            for store in [rowByRow, setAside] {
                owners = []
                for name in ["Ann", "Bob", "Cy"] {
                    owners.append(try await store.users.insert(NewUser(name: name, email: "\(name)@example.com")))
                }
                let chosen = owners
                _ = try await store.items.insert(
                    contentsOf: (0..<40).map { index in
                        NewItem(
                            userID: chosen[index % 3], title: "item \(index)", notes: "notes \(index)",
                            status: index % 5 == 0 ? .done : .open, priority: index % 4)
                    })
            }
            self.owners = owners
        }

        func close() async {
            await rowByRow.close()
            await setAside.close()
            folder.remove()
        }
    }

    /// What must agree between the two paths: every item's ID, owner, status, priority and version.
    private func rows(_ store: Store) async throws -> [String] {
        try await store.items.items(matching: ItemQuery(sortField: .created, sortDirection: .ascending)).map {
            "\($0.id.rawValue) \($0.userID.rawValue) \($0.status.rawValue) \($0.priority) v\($0.version)"
        }
    }

    private func schema(_ path: String) async throws -> String {
        try await ChildProcess.sqlite3Output(
            path, "SELECT type, name, sql FROM sqlite_schema WHERE type IN ('index', 'trigger') ORDER BY name;")
    }

    private func updateLogEntries(_ path: String) async throws -> String {
        try await ChildProcess.sqlite3Output(
            path, "SELECT count(*) FROM shelf_change_log WHERE table_name = 'items' AND operation = 'update';")
    }

    /// The item totals of Migrations/0016 that differ from a count of the table ("" when none):
    /// the set-aside path drops their update trigger and counts them again at the end.
    private func totalsDrift(_ path: String) async throws -> String {
        try await ChildProcess.sqlite3Output(
            path,
            ItemCountTotalsTests.driftSQL + """
                ;
                SELECT 'sum' WHERE (SELECT sum(n) FROM shelf_item_counts WHERE kind = 'u')
                    IS NOT (SELECT count(*) FROM items);
                """)
    }

    @Test(arguments: [BulkChange.status(.done), .priority(3), .owner(User.ID(1))])
    func aBulkChangeOfMostItemsGivesTheRowsOfTheRowByRowPath(_ change: BulkChange) async throws {
        let pair = try await Pair()
        let path = try #require(pair.setAside.path)
        let schemaBefore = try await schema(path)
        let logBefore = try await updateLogEntries(path)
        let live = try await pair.setAside.liveItems(matching: ItemQuery(status: .open), limit: 50)
        let everything = ItemSelection(matching: ItemQuery())
        let slow = try await pair.rowByRow.items.updateItems(in: everything, change, progress: nil)
        let fast = try await pair.setAside.items.updateItems(in: everything, change, progress: nil)
        #expect(slow.count == fast.count && fast.count > 20)
        #expect(try await rows(pair.setAside) == rows(pair.rowByRow))
        #expect(try await totalsDrift(path) == "")
        // The set-aside path logged no row; the indexes and triggers are all back, as they were.
        #expect(try await updateLogEntries(path) == logBefore)
        #expect(try await schema(path) == schemaBefore)
        #expect(try await ChildProcess.sqlite3Output(path, "PRAGMA integrity_check;") == "ok")
        // The rebuilt indexes answer: counts by status read through them.
        for status in [Item.Status.open, .done] {
            #expect(
                try await pair.setAside.items.items(matching: ItemQuery(status: status)).count
                    == pair.rowByRow.items.items(matching: ItemQuery(status: status)).count)
        }
        let expectedOpen = try await pair.rowByRow.items.items(matching: ItemQuery(status: .open)).count
        #expect(await eventually { live.value.success?.totalCount == expectedOpen })

        for _ in 0..<2 {
            #expect(try await pair.setAside.items.undo(fast) == pair.rowByRow.items.undo(slow))
            #expect(try await rows(pair.setAside) == rows(pair.rowByRow))
            #expect(try await totalsDrift(path) == "")
            #expect(try await pair.setAside.items.redo(fast) == pair.rowByRow.items.redo(slow))
            #expect(try await rows(pair.setAside) == rows(pair.rowByRow))
            #expect(try await totalsDrift(path) == "")
        }
        #expect(try await schema(path) == schemaBefore)
        #expect(try await updateLogEntries(path) == logBefore)
        await pair.close()
    }

    @Test func aBulkChangeThatFailsOnTheSetAsidePathLeavesTheSchemaAndRowsAsTheyWere() async throws {
        let pair = try await Pair()
        let path = try #require(pair.setAside.path)
        // Another program's trigger refuses one row, late in the change.
        _ = try await ChildProcess.sqlite3Output(
            path,
            """
            CREATE TRIGGER other_program BEFORE UPDATE OF status ON items WHEN NEW.id = 39
            BEGIN SELECT RAISE(ABORT, 'refused by another program'); END;
            """)
        let schemaBefore = try await schema(path)
        let before = try await rows(pair.setAside)
        await #expect(throws: StoreError.self) {
            try await pair.setAside.items.updateItems(
                in: ItemSelection(matching: ItemQuery()), .status(.done), progress: nil)
        }
        #expect(try await rows(pair.setAside) == before)
        #expect(try await schema(path) == schemaBefore)
        #expect(
            try await ChildProcess.sqlite3Output(path, "SELECT count(*) FROM bulk_action_items;") == "0",
            "no record of an action that did not happen")
        await pair.close()
    }

    @Test func aSmallChangeOfABigTableStaysRowByRow() async throws {
        let pair = try await Pair()
        let path = try #require(pair.setAside.path)
        let logBefore = Int(try await updateLogEntries(path).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        // 3 of 40 items: a quarter is 10, so their change is logged row by row.
        let all = try await pair.setAside.items.items(matching: ItemQuery(status: .open))
        let selection = ItemSelection(ids: all.prefix(3).map(\.id))
        _ = try await pair.setAside.items.updateItems(in: selection, .priority(0), progress: nil)
        let logAfter = Int(try await updateLogEntries(path).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        #expect(logAfter > logBefore, "each row logged")
        await pair.close()
    }
}
