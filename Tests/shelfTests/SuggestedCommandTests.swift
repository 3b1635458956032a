import Foundation
import ShelfTestSupport
import Testing

/// Commands that error messages suggest reach the database the failed command used (issue
/// 21: they left out `--db`, so pasting one acted on another database).
@Suite("Suggested commands name --db (end to end)")
struct SuggestedCommandTests {
    @Test func aSuggestionNamesTheDatabaseGivenWithDB() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.folder.appendingPathComponent("my store.sqlite").path
        let quoted = "'\(db)'"
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"]).status == 0
        )

        let noUser = try await shelf.run(["items", "add", "--db", db, "--user", "cy@example.com", "--title", "t"])
        #expect(noUser.status == 1)
        #expect(
            noUser.error.contains("`shelf users add --db \(quoted) --name NAME --email cy@example.com`"),
            "\(noUser.error)")

        let noView = try await shelf.run(["views", "delete", "--db=\(db)", "Nope"])
        #expect(noView.status != 0)
        #expect(noView.error.contains("`shelf views list --db \(quoted)`"), "\(noView.error)")

        let noItem = try await shelf.run(["items", "remove", "--db", db, "999"])
        #expect(noItem.status != 0)
        #expect(noItem.error.contains("`shelf items list --db \(quoted)`"), "\(noItem.error)")
    }

    /// Without --db the suggested command finds the same database the same way (SHELF_DB or
    /// the default): nothing is added.
    @Test func aSuggestionWithoutDBIsLeftAsItIs() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@example.com"]).status == 0
        )
        let noUser = try await shelf.run(
            ["items", "add", "--user", "cy@example.com", "--title", "t"], environment: ["SHELF_DB": db])
        #expect(noUser.status == 1)
        #expect(noUser.error.contains("`shelf users add --name NAME --email cy@example.com`"), "\(noUser.error)")
    }
}
