import Foundation
import ShelfStore
import Testing

@Suite("SQLiteUserRepository")
struct UserRepositoryTests {
    @Test func insertsAndFetches() async throws {
        let fixture = try await Fixture()
        let user = try #require(try await fixture.store.users.user(id: fixture.ann))
        #expect(user.name == "Ann")
        #expect(user.email == "ann@example.com")
        #expect(try await fixture.store.users.user(email: "ANN@example.COM")?.id == fixture.ann)
        #expect(try await fixture.store.users.user(id: User.ID(999)) == nil)
    }

    @Test func emailIsUniqueIgnoringCase() async throws {
        let fixture = try await Fixture()
        let error = await #expect(throws: StoreError.self) {
            try await fixture.store.users.insert(NewUser(name: "Other Ann", email: "ANN@EXAMPLE.COM"))
        }
        #expect(error?.code == .duplicateEmail)
        #expect(error?.message.contains("another email") == true)
        #expect(try await fixture.store.users.users().count == 1)
    }

    @Test(arguments: [("", "a@b.c"), ("   ", "a@b.c"), ("Bob", "not-an-email"), ("Bob", "")])
    func rejectsInvalidFields(name: String, email: String) async throws {
        let fixture = try await Fixture()
        let error = await #expect(throws: StoreError.self) {
            try await fixture.store.users.insert(NewUser(name: name, email: email))
        }
        #expect(error?.code == .invalidValue)
    }

    @Test func batchInsertIsAllOrNothing() async throws {
        let fixture = try await Fixture()
        let batch = [
            NewUser(name: "Bob", email: "bob@example.com"),
            NewUser(name: "Cy", email: "cy@example.com"),
            NewUser(name: "Ann again", email: "Ann@Example.com"),
        ]
        let error = await #expect(throws: StoreError.self) { try await fixture.store.users.insert(contentsOf: batch) }
        #expect(error?.message.hasPrefix("user 3 of 3") == true)
        #expect(try await fixture.store.users.users().map(\.name) == ["Ann"])
    }

    @Test func updateAndDeleteCascadeToItems() async throws {
        let fixture = try await Fixture()
        let users = fixture.store.users
        var ann = try #require(try await users.user(id: fixture.ann))
        ann.name = "Ann Smith"
        try await users.update(ann)
        #expect(try await users.user(id: fixture.ann)?.name == "Ann Smith")

        _ = try await fixture.store.items.insert(NewItem(userID: fixture.ann, title: "Moth book"))
        try await users.delete(id: fixture.ann)
        #expect(try await users.user(id: fixture.ann) == nil)
        #expect(try await fixture.itemCount() == 0)
        #expect(
            try await fixture.store.items.count(matching: ItemQuery(text: "moth")) == 0,
            "the FTS index follows the cascade")

        let missing = await #expect(throws: StoreError.self) { try await users.delete(id: fixture.ann) }
        #expect(missing?.code == .notFound)
        let missingUpdate = await #expect(throws: StoreError.self) { try await users.update(ann) }
        #expect(missingUpdate?.code == .notFound)
    }

    @Test func listsUsersByNameIgnoringCase() async throws {
        let fixture = try await Fixture()
        _ = try await fixture.store.users.insert(contentsOf: [
            NewUser(name: "bob", email: "bob@example.com"), NewUser(name: "Aaron", email: "aaron@example.com"),
        ])
        #expect(try await fixture.store.users.users().map(\.name) == ["Aaron", "Ann", "bob"])
    }
}
