import Foundation
import ShelfStore

/// A fresh temporary store per test, with one user.
struct Fixture {
    let store: Store
    let ann: User.ID

    init() async throws {
        store = try Store.temporary()
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
