import Foundation
import ShelfSQLiteBackend
import ShelfStore
import ShelfTestSupport
import Testing

/// Library errors carry a structured hint and no CLI option; the command renders the hint
/// with its own options.
@Suite struct ErrorHintTests {
    @Test func theLibrarysErrorNamesNoOptionAndCarriesAHint() throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let other = try Self.anotherProgramsDatabase(in: shelf)
        #expect {
            _ = try Store(path: other)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .foreignDatabase && error.hint == .chooseAnotherDatabase
                && !error.message.contains("--db") && !error.message.contains("SHELF_DB")
        }
    }

    @Test func theCommandRendersTheHintWithItsOptions() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let other = try Self.anotherProgramsDatabase(in: shelf)
        let result = try await shelf.run(["items", "list", "--db", other])
        #expect(result.status == 1)
        #expect(result.error.contains("not a shelf"), "\(result.error)")
        #expect(result.error.contains("(choose the database with --db or SHELF_DB)"), "\(result.error)")
    }

    /// A SQLite file of another program's, made with the real sqlite3.
    private static func anotherProgramsDatabase(in shelf: ShelfProcess) throws -> String {
        let other = shelf.folder.appendingPathComponent("other.sqlite").path
        let status = try ChildProcess(
            "/usr/bin/sqlite3", [other, "CREATE TABLE invoices (id INTEGER PRIMARY KEY);"],
            environment: [:], stdin: "/dev/null", stdout: "/dev/null", stderr: "/dev/null"
        ).wait()
        #expect(status == 0)
        return other
    }
}
