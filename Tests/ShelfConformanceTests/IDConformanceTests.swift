import Foundation
import ShelfSQLiteBackend
import ShelfStore
import Testing

/// IDs are never handed out again (issue 22), on every backend, and a copy keeps every ID
/// sequence ahead.
@Suite("Conformance: IDs never reused")
struct IDConformanceTests {
    /// Removing the newest user and adding another gives the new one a higher ID, one at a time
    /// and in a batch: a client holding the removed ID must not find another person under it.
    /// (SQLite reused it before migration 0015: `users.id` was a plain INTEGER PRIMARY KEY.)
    @Test(arguments: Backend.available)
    func aRemovedUsersIDIsNeverHandedOutAgain(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
            try await store.users.delete(id: bob)
            let cy = try await store.users.insert(NewUser(name: "Cy", email: "cy@example.com"))
            #expect(cy.rawValue > bob.rawValue, "user \(cy.rawValue) took the removed \(bob.rawValue)")
            try await store.users.delete(id: cy)
            let batch = try await store.users.insert(contentsOf: [
                NewUser(name: "Di", email: "di@example.com"), NewUser(name: "Ed", email: "ed@example.com"),
            ])
            #expect(batch.allSatisfy { $0.rawValue > cy.rawValue }, "\(batch) took the removed \(cy.rawValue)")
            #expect(try await store.users.user(id: bob) == nil)
            #expect(try await store.users.user(id: cy) == nil)
            #expect(try await store.users.users().map(\.id) == [ann] + batch)
        }
    }

    /// The same for saved views (the API and `--view` name them by ID too) and items.
    @Test(arguments: Backend.available)
    func aRemovedViewsOrItemsIDIsNeverHandedOutAgain(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            _ = try await store.views.save(NewSavedView(name: "First", queryText: "a"))
            let second = try await store.views.save(NewSavedView(name: "Second", queryText: "b"))
            try await store.views.delete(named: "Second")
            let third = try await store.views.save(NewSavedView(name: "Third", queryText: "c"))
            #expect(third.id.rawValue > second.id.rawValue, "view \(third.id) took the removed \(second.id)")

            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let item = try await store.items.insert(NewItem(userID: ann, title: "One"))
            try await store.items.delete(id: item)
            let next = try await store.items.insert(NewItem(userID: ann, title: "Two"))
            #expect(next.rawValue > item.rawValue)
        }
    }

    /// `shelf copy` from every backend to a SQLite file (SQLite -> SQLite when the backend is
    /// SQLite), then from that file into a fresh store of the backend (SQLite -> PostgreSQL
    /// when it is PostgreSQL): a user and a view removed before the copy are not reissued after
    /// it, on either side.
    @Test(arguments: Backend.available)
    func aCopyKeepsEveryIDSequenceAhead(_ backend: Backend) async throws {
        try await backend.withStore { store in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
            try await store.items.insert(NewItem(userID: ann, title: "Kept"))
            try await store.users.delete(id: bob)
            _ = try await store.views.save(NewSavedView(name: "Kept", queryText: ""))
            let gone = try await store.views.save(NewSavedView(name: "Gone", queryText: ""))
            try await store.views.delete(named: "Gone")
            let middle = try Store.temporary()
            #expect(try await store.copy(to: middle).matches)
            try await backend.withStore { back in
                #expect(try await middle.copy(to: back).matches)
                for target in [middle, back] {
                    let next = try await target.users.insert(NewUser(name: "Cy", email: "cy@example.com"))
                    #expect(next.rawValue > bob.rawValue, "user \(next.rawValue) reissued the removed \(bob.rawValue)")
                    let view = try await target.views.save(NewSavedView(name: "New", queryText: ""))
                    #expect(view.id.rawValue > gone.id.rawValue, "view \(view.id) reissued the removed \(gone.id)")
                }
            }
            await middle.close()
        }
    }
}
