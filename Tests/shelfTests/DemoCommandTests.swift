import Foundation
import Testing

@Suite("shelf demo")
struct DemoCommandTests {
    /// "Adds to what is there": a second run adds items for the same sample users, instead of
    /// failing on their emails.
    @Test func aSecondRunAddsToWhatIsThere() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        let first = try await shelf.run(["demo", "--db", db, "--users", "5", "--items", "30"])
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output.hasPrefix("Added 5 users and 30 items"))
        let second = try await shelf.run(["demo", "--db", db, "--users", "7", "--items", "20"])
        #expect(second.status == 0, "\(second.error)")
        #expect(second.output.hasPrefix("Added 2 users and 20 items"), "\(second.output)")
        #expect(second.output.contains("(5 sample users were there already)"))
        let users = try await shelf.run(["users", "list", "--db", db])
        #expect(users.output.split(separator: "\n").count == 7)
        let items = try await shelf.run(["items", "list", "--db", db])
        #expect(items.output.split(separator: "\n").count == 50)
    }
}
