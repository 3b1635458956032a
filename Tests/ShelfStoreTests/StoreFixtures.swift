import Foundation

@testable import ShelfSQLiteBackend
@testable import ShelfStore

/// A fresh temporary store per test, with one user.
struct Fixture {
    let store: Store
    /// The store's SQLite backend, for tests that look inside it.
    let sqlite: SQLiteBackend
    let ann: User.ID

    init() async throws {
        sqlite = try SQLiteBackend.temporary()
        store = Store(sqlite: sqlite)
        ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
    }

    func itemCount() async throws -> Int {
        try await store.items.count(matching: ItemQuery())
    }
}

extension Result {
    /// The value, or nil for a failure.
    var success: Success? { try? get() }
}
