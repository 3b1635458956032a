import Foundation
import ShelfSQLiteBackend
import ShelfStore
import ShelfTestSupport
import Testing

/// Users whose emails differ only in letter case, stored before the rule (migration 0006) or
/// by another program: opening reports them and changes nothing else; every other user gets
/// the key that makes emails one user whatever their case.
@Suite("Email keys and collisions (SQLite)")
struct EmailCollisionTests {
    @Test func collidingEmailsWrittenByAnotherProgramAreReportedNotRefused() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        let first = try Store(path: path)
        let ada = try await first.users.insert(NewUser(name: "Ada", email: "Äda@x.com"))
        let ann = try await first.users.insert(NewUser(name: "Ann", email: "ann@x.com"))
        await first.close()
        // The sqlite3 shell changes an email: its stale key is dropped, which would otherwise
        // keep the old email taken.
        #expect(
            try await ChildProcess.sqlite3(path, "UPDATE users SET email = 'anna@x.com' WHERE id = \(ann.rawValue)")
                == 0)
        // Ada as on a database from before the keys, and a user as the shell adds one: no key.
        #expect(
            try await ChildProcess.sqlite3(path, "UPDATE users SET email_key = NULL WHERE id = \(ada.rawValue)") == 0)
        #expect(
            try await ChildProcess.sqlite3(
                path, "INSERT INTO users (name, email, created_at) VALUES ('Other Ada', 'äda@x.com', 0)") == 0)

        let store = try Store(path: path)
        let other = try #require(try await store.users.user(email: "äda@x.com"))
        #expect(other.name == "Other Ada", "an email typed exactly as stored finds its user")
        #expect(
            store.emailCollisions == [
                EmailCollision(user: other.id, email: "äda@x.com", keptBy: ada, keptEmail: "Äda@x.com")
            ])
        #expect(try await store.users.user(email: "ÄDA@X.COM")?.id == ada, "the older user keeps the key")
        #expect(try await store.users.users().count == 3, "nobody merged, nobody removed")
        // The other users have their keys again: the rule holds for them.
        let taken = await #expect(throws: StoreError.self) {
            try await store.users.insert(NewUser(name: "X", email: "ANNA@X.COM"))
        }
        #expect(taken?.code == .duplicateEmail)
        try await store.users.insert(NewUser(name: "New Ann", email: "ann@x.com"))

        // Once one of the two emails changes, the collision is gone at the next open.
        var renamed = other
        renamed.email = "ada2@x.com"
        try await store.users.update(renamed)
        #expect(try Store(path: path).emailCollisions.isEmpty)
    }
}
