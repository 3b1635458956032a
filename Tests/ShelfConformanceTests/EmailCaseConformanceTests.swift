import Foundation
import ShelfStore
import Testing

/// Emails are one user whatever their letter case, in every script, with the same answers on
/// every backend: Unicode case folding (`Email.key`), not SQLite's NOCASE (ASCII only) nor
/// PostgreSQL's lower() (the database's locale).
@Suite("Conformance: email letter case")
struct EmailCaseConformanceTests {
    @Test(arguments: Backend.available)
    func emailsDifferingOnlyInLetterCaseAreOneUserInEveryScript(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ada = try await store.users.insert(NewUser(name: "Ada", email: "Äda@x.com"))
            let strasse = try await store.users.insert(NewUser(name: "Street", email: "straße@x.com"))
            let sigma = try await store.users.insert(NewUser(name: "Sigma", email: "ΣΑΣ@x.com"))
            for (email, owner) in [
                ("äda@x.com", ada), ("ÄDA@X.COM", ada), ("A\u{308}da@x.com", ada),
                ("STRASSE@x.com", strasse), ("strasse@x.com", strasse), ("STRAẞE@x.com", strasse),
                ("σας@x.com", sigma), ("σασ@X.com", sigma),
            ] {
                #expect(try await store.users.user(email: email)?.id == owner, "\(email)")
                let duplicate = await #expect(throws: StoreError.self, "\(email)") {
                    try await store.users.insert(NewUser(name: "Other", email: email))
                }
                #expect(duplicate?.code == .duplicateEmail, "\(email)")
            }
            #expect(try await store.users.user(email: "ada@x.com") == nil, "Ä and A are other letters, not other case")
            // Changing an email to another user's, in other letter case, is refused too.
            let other = try await store.users.insert(NewUser(name: "Other", email: "other@x.com"))
            var renamed = try #require(try await store.users.user(id: other))
            renamed.email = "äDA@x.com"
            let taken = await #expect(throws: StoreError.self) { try await store.users.update(renamed) }
            #expect(taken?.code == .duplicateEmail)
            #expect(try await store.users.user(id: other)?.email == "other@x.com", "nothing was changed")
            // A user's own email in other letter case is theirs to take, and is found after.
            var ownCase = try #require(try await store.users.user(id: ada))
            ownCase.email = "ädA@x.com"
            try await store.users.update(ownCase)
            #expect(try await store.users.user(email: "ÄDA@x.com")?.email == "ädA@x.com")
            #expect(try await store.users.users().count == 4)
            #expect(store.emailCollisions.isEmpty)
        }
    }
}
