import Foundation
import ShelfSQLiteBackend
import ShelfStore
import ShelfTestSupport
import Testing

@testable import ShelfTransfer

/// A row that holds a NUL character (stored by another program before migration 0009 made
/// the database refuse them) is not exported raw: no format shelf imports can carry it, so the
/// export stops, naming the row and the field, and leaves no file.
@Suite("Export of rows stored with a NUL")
struct ExportNULTests {
    @Test(arguments: [TransferFormat.csv, .tsv, .json, .ndjson])
    func anItemWithANULStopsTheExportNamingIt(_ format: TransferFormat) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        let store = try Store(path: path)
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@x.com"))
        try await store.items.insert(NewItem(userID: ann, title: "Clean"))
        let held = try await store.items.insert(NewItem(userID: ann, title: "Held"))
        await store.close()
        // As before the rule: the trigger dropped while the row is written (the migration that
        // made it is recorded, so reopening does not make it again).
        #expect(
            try await ChildProcess.sqlite3(
                path,
                "DROP TRIGGER items_refuse_nul_before_update; "
                    + "UPDATE items SET notes = cast(x'610062' as text) WHERE id = \(held.rawValue)") == 0)
        let reopened = try Store(path: path)
        let target = folder.path("out.\(format.rawValue)")
        await #expect {
            try await Exporter(store: reopened).exportItems(to: .file(target), options: ExportOptions(format: format))
        } throws: { error in
            "\(error)".contains("item \(held.rawValue) holds a NUL character in its notes")
                && "\(error)".contains("remove it from that row, then export again")
        }
        #expect(!FileManager.default.fileExists(atPath: target), "no file is left")
        await reopened.close()
    }

    /// A time another program stored past the year 9999 was exported as `+287396-…`, which
    /// import refuses: the round trip the export promises failed (hostile tester).
    @Test(arguments: [TransferFormat.csv, .ndjson])
    func aTimeAnImportCannotReadStopsTheExportNamingIt(_ format: TransferFormat) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        let store = try Store(path: path)
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@x.com"))
        try await store.items.insert(NewItem(userID: ann, title: "Clean"))
        let late = try await store.items.insert(NewItem(userID: ann, title: "Late"))
        await store.close()
        #expect(
            try await ChildProcess.sqlite3(
                path, "UPDATE items SET created_at = 9007199254740993 WHERE id = \(late.rawValue)") == 0)
        let reopened = try Store(path: path)
        let target = folder.path("out.\(format.rawValue)")
        await #expect {
            try await Exporter(store: reopened).exportItems(to: .file(target), options: ExportOptions(format: format))
        } throws: { error in
            "\(error)".contains("item \(late.rawValue) has the created_at +287396-10-12T08:59:00.993Z")
                && "\(error)".contains("outside the years 0000 to 9999")
        }
        #expect(!FileManager.default.fileExists(atPath: target), "no file is left")
        await reopened.close()
    }

    @Test func aUserWithANULStopsTheExportNamingIt() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        let store = try Store(path: path)
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@x.com"))
        await store.close()
        #expect(
            try await ChildProcess.sqlite3(
                path,
                "DROP TRIGGER users_refuse_nul_before_update; "
                    + "UPDATE users SET name = cast(x'410042' as text) WHERE id = \(ann.rawValue)") == 0)
        let reopened = try Store(path: path)
        let target = folder.path("users.csv")
        await #expect {
            try await Exporter(store: reopened).exportUsers(to: .file(target), options: ExportOptions(format: .csv))
        } throws: { error in
            "\(error)".contains("user \(ann.rawValue) holds a NUL character in its name")
        }
        #expect(!FileManager.default.fileExists(atPath: target))
        await reopened.close()
    }
}
