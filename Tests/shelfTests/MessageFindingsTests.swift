import Foundation
import Testing

/// Findings of the third hostile test that are about what the CLI refuses and what it says,
/// end to end through the built binary.
@Suite("Round-three findings: refusals and messages (end to end)")
struct MessageFindingsTests {
    /// `a b@e.org` was stored as a user.
    @Test func anEmailWithASpaceInsideIsRefused() throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        let added = try shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "a b@e.org"])
        #expect(added.status == 1)
        #expect(
            added.error.contains("the email \"a b@e.org\" holds a space at character 2; an email cannot hold spaces"),
            "\(added.error)")
        let nbsp = try shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "ann@e\u{A0}x.org"])
        #expect(nbsp.status == 1)
        #expect(nbsp.error.contains("at character 6; an email cannot hold spaces"), "\(nbsp.error)")
        // Spaces around it are still trimmed.
        let trimmed = try shelf.run(["users", "add", "--db", db, "--name", "Ann", "--email", "  ann@e.org "])
        #expect(trimmed.status == 0, "\(trimmed.error)")
        #expect(try shelf.run(["users", "list", "--db", db]).output.contains("\tann@e.org\t"))
    }
}
