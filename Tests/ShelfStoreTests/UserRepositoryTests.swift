import Foundation
import ShelfSQLiteBackend
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

    // MARK: - One email, one user

    @Test(arguments: [
        ("\u{C4}da@example.com", "A\u{308}da@example.com"),  // composed and decomposed Ä
        ("ada@example.com", "  ada@example.com "),
        ("ada@example.com", "\u{A0}ada@example.com\u{3000}"),  // no-break and ideographic spaces
        ("ada@example.com", "ADA@example.com"),
    ])
    func emailsThatLookTheSameAreOneUser(first: String, second: String) async throws {
        let fixture = try await Fixture()
        let users = fixture.store.users
        let ada = try await users.insert(NewUser(name: "Ada", email: first))
        let error = await #expect(throws: StoreError.self) {
            try await users.insert(NewUser(name: "Ada again", email: second))
        }
        #expect(error?.code == .duplicateEmail)
        #expect(try await users.user(email: second)?.id == ada)
        #expect(try await users.user(email: first)?.id == ada)
        // Stored in the one form: trimmed, composed.
        let stored = try #require(try await users.user(id: ada)).email
        #expect(Array(stored.unicodeScalars) == Array(Email.lookupKey(first).unicodeScalars))
        #expect(!stored.unicodeScalars.contains("\u{308}") && stored.first != " ")
    }

    @Test func anUpdateCannotTakeAnEmailThatLooksTheSame() async throws {
        let fixture = try await Fixture()
        let users = fixture.store.users
        let bob = try await users.insert(NewUser(name: "Bob", email: "bob@example.com"))
        var changed = try #require(try await users.user(id: bob))
        changed.email = " ann@example.com"
        let error = await #expect(throws: StoreError.self) { try await users.update(changed) }
        #expect(error?.code == .duplicateEmail)
        changed.email = "A\u{308}da@example.com "
        try await users.update(changed)
        #expect(try await users.user(id: bob)?.email == "\u{C4}da@example.com")
    }

    static let refused: [(String, String, String)] = [
        ("ann@example.com\nx", "U+000A", "character 16"),
        ("ann\u{202E}moc.elpmaxe@x", "U+202E (RIGHT-TO-LEFT OVERRIDE)", "character 4"),
        ("ann@example.com\n", "U+000A", "character 16"),
        ("\tann@example.com", "U+0009", "character 1"),
        ("ann@exam\u{7F}ple.com", "U+007F", "character 9"),
        ("ann@exam\u{85}ple.com", "U+0085", "character 9"),
        ("ann@exam\u{2028}ple.com", "U+2028 (LINE SEPARATOR)", "character 9"),
        ("ann@exam\u{2029}ple.com", "U+2029 (PARAGRAPH SEPARATOR)", "character 9"),
        ("ann@exam\u{200E}ple.com", "U+200E (LEFT-TO-RIGHT MARK)", "character 9"),
        ("ann@exam\u{200F}ple.com", "U+200F (RIGHT-TO-LEFT MARK)", "character 9"),
        ("ann@exam\u{202A}ple.com", "U+202A (LEFT-TO-RIGHT EMBEDDING)", "character 9"),
        ("ann@exam\u{2066}ple.com", "U+2066 (LEFT-TO-RIGHT ISOLATE)", "character 9"),
        ("ann@exam\u{2069}ple.com", "U+2069 (POP DIRECTIONAL ISOLATE)", "character 9"),
        ("ann@exam\u{0}ple.com", "U+0000", "character 9"),
        ("ann\u{200B}@example.com", "U+200B (ZERO WIDTH SPACE)", "character 4"),
        ("ann\u{200D}@example.com", "U+200D (ZERO WIDTH JOINER)", "character 4"),
        ("ann\u{AD}@example.com", "U+00AD (SOFT HYPHEN)", "character 4"),
        ("\u{FEFF}ann@example.com", "U+FEFF (ZERO WIDTH NO-BREAK SPACE)", "character 1"),
        ("ann\u{2060}@example.com", "U+2060 (WORD JOINER)", "character 4"),
        ("x@example.com\u{34F}", "U+034F (COMBINING GRAPHEME JOINER)", "character 14"),
        ("ann\u{FE0F}@example.com", "U+FE0F (VARIATION SELECTOR-16)", "character 4"),
        ("ann\u{3164}@example.com", "U+3164 (HANGUL FILLER)", "character 4"),
    ]

    @Test(arguments: refused)
    func controlAndDirectionCharactersAreRefused(email: String, character: String, position: String) async throws {
        let fixture = try await Fixture()
        let error = await #expect(throws: StoreError.self) {
            try await fixture.store.users.insert(NewUser(name: "Mallory", email: email))
        }
        #expect(error?.code == .invalidValue)
        let message = error?.message ?? ""
        #expect(message.contains(character), "\(message)")
        #expect(message.contains(position), "\(message)")
        #expect(message.contains("retype"), "\(message)")
        // The message itself is safe to print: the character is escaped, not repeated.
        #expect(!message.unicodeScalars.contains(where: Email.isRefused), "\(message)")
        #expect(try await fixture.store.users.users().count == 1)
    }

    @Test func aRefusedEmailInABatchNamesItsRowAndWritesNothing() async throws {
        let fixture = try await Fixture()
        let error = await #expect(throws: StoreError.self) {
            try await fixture.store.users.insert(contentsOf: [
                NewUser(name: "Bob", email: "bob@example.com"),
                NewUser(name: "Eve", email: "eve@example.com\u{202E}"),
            ])
        }
        #expect(error?.message.hasPrefix("user 2 of 2: ") == true)
        #expect(try await fixture.store.users.users().count == 1)
    }

    @Test func anUpdateWithARefusedEmailChangesNothing() async throws {
        let fixture = try await Fixture()
        var ann = try #require(try await fixture.store.users.user(id: fixture.ann))
        ann.email = "ann@example.com\r\n"
        let error = await #expect(throws: StoreError.self) { try await fixture.store.users.update(ann) }
        #expect(error?.code == .invalidValue)
        #expect(try await fixture.store.users.user(id: fixture.ann)?.email == "ann@example.com")
    }
}
