import Foundation
import ShelfStore
import Testing

/// One rule for the NUL character (U+0000) on every write path and backend: titles, notes,
/// names and emails refuse it with `.invalidValue`, naming the field and what to do, and
/// nothing is written. (SQLite text could hold it, and did; an export of it could then not be
/// imported, and PostgreSQL refused it only with a server error.)
@Suite("Conformance: NUL in text")
struct NULConformanceTests {
    private static func expectRefusal(
        _ error: StoreError?, field: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(error?.code == .invalidValue, sourceLocation: sourceLocation)
        let message = error?.message ?? ""
        #expect(
            message.contains("\(field) cannot hold the NUL character (U+0000)"), "\(message)",
            sourceLocation: sourceLocation)
        #expect(message.contains("remove it"), "\(message)", sourceLocation: sourceLocation)
    }

    @Test(arguments: Backend.available)
    func itemsRefuseANULOnInsertAndUpdate(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            var insert = await #expect(throws: StoreError.self) {
                try await store.items.insert(NewItem(userID: ann, title: "Plan", notes: "line one\0line two"))
            }
            Self.expectRefusal(insert, field: "an item's notes")
            #expect(insert?.message.contains("found at character 9 ") == true, "\(insert?.message ?? "")")
            insert = await #expect(throws: StoreError.self) {
                try await store.items.insert(contentsOf: [
                    NewItem(userID: ann, title: "Fine"), NewItem(userID: ann, title: "Pl\0an"),
                ])
            }
            Self.expectRefusal(insert, field: "an item's title")
            #expect(insert?.message.hasPrefix("item 2 of 2: ") == true)
            #expect(try await store.items.count(matching: ItemQuery()) == 0, "nothing was stored")

            let id = try await store.items.insert(NewItem(userID: ann, title: "Plan", notes: "clean"))
            let stored = try #require(try await store.items.item(id: id))
            var edited = stored
            edited.notes = "\0"
            Self.expectRefusal(
                await #expect(throws: StoreError.self) { try await store.items.update(edited) },
                field: "an item's notes")
            Self.expectRefusal(
                await #expect(throws: StoreError.self) { try await store.items.update(contentsOf: [edited]) },
                field: "an item's notes")
            edited.notes = "clean"
            edited.title = "Plan\0"
            Self.expectRefusal(
                await #expect(throws: StoreError.self) { try await store.items.update(contentsOf: [edited]) },
                field: "an item's title")
            #expect(try await store.items.item(id: id) == stored, "nothing was written")
        }
    }

    @Test(arguments: Backend.available)
    func usersRefuseANULInNameAndEmail(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            Self.expectRefusal(
                await #expect(throws: StoreError.self) {
                    try await store.users.insert(NewUser(name: "A\0nn", email: "ann@example.com"))
                }, field: "a user's name")
            let email = await #expect(throws: StoreError.self) {
                try await store.users.insert(NewUser(name: "Ann", email: "ann\0@example.com"))
            }
            #expect(email?.code == .invalidValue && email?.message.contains("U+0000") == true)
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            var renamed = try #require(try await store.users.user(id: ann))
            renamed.name = "Ann\0"
            Self.expectRefusal(
                await #expect(throws: StoreError.self) { try await store.users.update(renamed) }, field: "a user's name"
            )
            #expect(try await store.users.user(id: ann)?.name == "Ann")
            #expect(try await store.users.users().count == 1)
        }
    }
}
