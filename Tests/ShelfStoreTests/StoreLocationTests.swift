import ShelfStore
import Testing

@Suite("StoreLocation: --db and SHELF_DB")
struct StoreLocationTests {
    @Test func locationsAreReadByTheirShape() throws {
        #expect(try StoreLocation(parsing: "shelf.sqlite") == .sqlite(path: "shelf.sqlite"))
        #expect(try StoreLocation(parsing: "sqlite:/tmp/x") == .sqlite(path: "/tmp/x"))
        #expect(try StoreLocation(parsing: "postgres://a@h/d") == .postgres(url: "postgres://a@h/d"))
        #expect(try StoreLocation(parsing: "POSTGRESQL://a@h/d") == .postgres(url: "POSTGRESQL://a@h/d"))
        #expect(try StoreLocation(parsing: "./postgres-notes.sqlite") == .sqlite(path: "./postgres-notes.sqlite"))
    }

    @Test(arguments: ["", "sqlite:", "postgres:/u:SECRET@h/d", "postgres:SECRET@h/d", "postgresql:u:SECRET@h"])
    func mistakesAreRefusedWithoutShowingThePassword(_ text: String) {
        let error = #expect(throws: StoreError.self) { try StoreLocation(parsing: text) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("SECRET") == false)
    }

    /// Passwords typed with characters a URL reserves, not percent-encoded, are hidden whole.
    @Test(arguments: [
        ("postgres://ann:SECRET@h:5432/d", "postgres://ann:***@h:5432/d"),
        ("postgres://ann:SEC#RET@h/d", "postgres://ann:***@h/d"),
        ("postgres://ann:SEC?RET@h/d", "postgres://ann:***@h/d"),
        ("postgres://ann:s@h:/x@h/d", "postgres://ann:***@h/d"),
        ("postgres://ann:SEC/RET@h/d", "postgres://ann:***@h/d"),
        ("postgres://ann@h/d", "postgres://ann@h/d"),
        ("postgres://h/d", "postgres://h/d"),
    ])
    func descriptionsHideThePassword(_ url: String, _ shown: String) {
        #expect(StoreLocation.postgres(url: url).description == shown)
    }
}
