#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfStore
    import Testing

    /// The SQLite test of the same name (EmailCollisionTests), on PostgreSQL, with psql's
    /// kind of writes made through a connection of the test's own.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresEmailCollisionTests {
        @Test func collidingEmailsWrittenByAnotherProgramAreReportedNotRefused() async throws {
            try await Scratch.withDatabase { url in
                let first = try await Store.open(postgres: url)
                let ada = try await first.users.insert(NewUser(name: "Ada", email: "Äda@x.com"))
                let ann = try await first.users.insert(NewUser(name: "Ann", email: "ann@x.com"))
                await first.close()
                try await Scratch.execute("UPDATE users SET email = 'anna@x.com' WHERE id = \(ann.rawValue)", at: url)
                try await Scratch.execute("UPDATE users SET email_key = NULL WHERE id = \(ada.rawValue)", at: url)
                try await Scratch.execute(
                    "INSERT INTO users (name, email, created_at) VALUES ('Other Ada', 'äda@x.com', 0)", at: url)

                let store = try await Store.open(postgres: url)
                do {
                    let other = try #require(try await store.users.user(email: "äda@x.com"))
                    #expect(other.name == "Other Ada")
                    #expect(
                        store.emailCollisions == [
                            EmailCollision(user: other.id, email: "äda@x.com", keptBy: ada, keptEmail: "Äda@x.com")
                        ])
                    #expect(try await store.users.user(email: "ÄDA@X.COM")?.id == ada)
                    #expect(try await store.users.users().count == 3)
                    let taken = await #expect(throws: StoreError.self) {
                        try await store.users.insert(NewUser(name: "X", email: "ANNA@X.COM"))
                    }
                    #expect(taken?.code == .duplicateEmail)
                    try await store.users.insert(NewUser(name: "New Ann", email: "ann@x.com"))
                    var renamed = other
                    renamed.email = "ada2@x.com"
                    try await store.users.update(renamed)
                } catch {
                    await store.close()
                    throw error
                }
                await store.close()
                let again = try await Store.open(postgres: url)
                #expect(again.emailCollisions.isEmpty)
                await again.close()
            }
        }
    }
#endif
