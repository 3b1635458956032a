import Foundation
import ShelfStore
import ShelfTransfer
import Testing

/// Imports match emails as the store does, by `Email.key` (Unicode case folding), on both
/// backends and on both of the importer's paths (set-based, and row by row when the input
/// names a row twice or the store refuses one): `äda@x.com` in a file is the user stored as
/// `Äda@x.com`, and `STRASSE@x.com` the one stored as `straße@x.com`.
@Suite("Conformance: email letter case in imports")
struct EmailCaseImportConformanceTests {
    private static func run(
        _ store: Store, _ table: String, _ text: String, mode: ImportMode, skipInvalid: Bool = false
    ) async throws -> ImportSummary {
        var options = ImportOptions(mode: mode, skipInvalid: skipInvalid)
        options.confirmDeletions = { _ in }
        let path = try TransferConformanceTests.file("\(table).csv", text)
        let importer = Importer(store: store)
        return table == "users"
            ? try await importer.importUsers(from: .file(path), options: options)
            : try await importer.importItems(from: .file(path), options: options)
    }

    /// Two users whose emails differ from how the tests name them only in non-ASCII letter case.
    private static func seed(_ store: Store) async throws -> (ada: User.ID, street: User.ID) {
        let ada = try await store.users.insert(NewUser(name: "Ada", email: "Äda@x.com"))
        let street = try await store.users.insert(NewUser(name: "Street", email: "straße@x.com"))
        return (ada, street)
    }

    @Test(arguments: Backend.available)
    func anUpsertUpdatesTheUserWhoseEmailDiffersInLetterCase(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (ada, street) = try await Self.seed(store)
            // Set-based.
            let upsert = try await Self.run(
                store, "users", "name,email\nAda L,äda@x.com\nStreet S,STRASSE@x.com\n", mode: .upsert)
            #expect((upsert.inserted, upsert.updated) == (0, 2))
            #expect(try await store.users.users().count == 2)
            #expect(try await store.users.user(id: ada)?.email == "äda@x.com")
            #expect(try await store.users.user(id: street)?.name == "Street S")
            // The updated users keep their key: found in any case, and their email in another
            // case is still taken.
            #expect(try await store.users.user(email: "ÄDA@X.COM")?.id == ada)
            #expect(try await store.users.user(email: "straße@x.com")?.id == street)
            let taken = await #expect(throws: StoreError.self) {
                try await store.users.insert(NewUser(name: "Other", email: "Äda@x.com"))
            }
            #expect(taken?.code == .duplicateEmail)
            // Row by row (the input names Ada twice: the second row updates the first).
            let twice = try await Self.run(
                store, "users", "name,email\nAda 1,ÄDA@x.com\nAda 2,äDa@X.com\nStreet R,Straße@x.com\n",
                mode: .upsert)
            #expect((twice.inserted, twice.updated) == (0, 3))
            #expect(try await store.users.users().count == 2)
            #expect(try await store.users.user(id: ada).map { [$0.name, $0.email] } == ["Ada 2", "äDa@X.com"])
            #expect(try await store.users.user(id: street)?.name == "Street R")
            #expect(try await store.users.user(email: "äda@x.com")?.id == ada)
            #expect(try await store.users.user(email: "STRASSE@X.COM")?.id == street)
            // Inserting one of them again is refused, not a second user.
            let again = try await Self.run(
                store, "users", "name,email\nNew,ada@x.com\nÄda again,ÄDA@X.COM\nS,strasse@X.com\n", mode: .insert,
                skipInvalid: true)
            #expect((again.inserted, again.skipped) == (1, 2))
            #expect(try await store.users.users().count == 3)
            #expect(try await store.users.user(email: "ada@x.com").map { $0.id != ada } == true)
        }
    }

    @Test(arguments: Backend.available)
    func anItemNamesItsOwnerByEmailInAnyLetterCase(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (ada, street) = try await Self.seed(store)
            // Set-based.
            let plain = try await Self.run(
                store, "items", "title,user\nOne,ÄDA@X.COM\nTwo,STRASSE@x.com\n", mode: .insert)
            #expect(plain.inserted == 2)
            // Row by row (the store refuses the third row: no such owner).
            let refused = try await Self.run(
                store, "items", "title,user\nThree,äda@x.com\nFour,Strasse@X.com\nFive,nobody@x.com\n",
                mode: .insert, skipInvalid: true)
            #expect((refused.inserted, refused.skipped) == (2, 1))
            let owners = Dictionary(
                uniqueKeysWithValues: try await store.items.items(matching: ItemQuery()).map { ($0.title, $0.userID) })
            #expect(owners == ["One": ada, "Two": street, "Three": ada, "Four": street])
        }
    }

    @Test(arguments: Backend.available)
    func aReplaceKeepsTheUsersItNamesInAnotherLetterCase(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (ada, street) = try await Self.seed(store)
            let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@x.com"))
            let item = try await store.items.insert(NewItem(userID: ada, title: "Ada's"))
            // Set-based.
            let replace = try await Self.run(
                store, "users", "name,email\nAda,äda@x.com\nStreet,STRASSE@X.COM\nBob,BOB@x.com\n", mode: .replace)
            #expect((replace.inserted, replace.deleted, replace.itemsDeletedWithUsers) == (0, 0, 0))
            #expect(try await store.users.users().map(\.id).sorted() == [ada, street, bob].sorted())
            #expect(try await store.items.item(id: item)?.userID == ada)
            // Row by row (Ada named twice), Bob left out; Street's row is skipped (no name), and
            // its email in other letter case still keeps him.
            let rows = try await Self.run(
                store, "users", "name,email\nAda,ÄDA@x.com\nAda,Äda@X.COM\n,Strasse@x.com\n", mode: .replace,
                skipInvalid: true)
            #expect((rows.inserted, rows.deleted, rows.skipped) == (0, 1, 1))
            #expect(try await store.users.users().map(\.id).sorted() == [ada, street].sorted())
            #expect(try await store.items.item(id: item)?.userID == ada)
            #expect(try await store.users.user(email: "äda@x.com")?.id == ada)
        }
    }
}
